package schedule

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/robfig/cron/v3"
)

// Window is a recurring scaling schedule: from every time Cron names (in TimeZone, UTC when
// empty), for Duration, the group runs at least Floor instances (a Compute Engine autoscaler's
// scaling schedule, https://cloud.google.com/compute/docs/autoscaler/scaling-schedules). With
// Until, the window lasts instead until the first time Until names after it starts (a KEDA cron
// trigger's start and end, https://keda.sh/docs/latest/scalers/cron/).
type Window struct {
	Name, Cron, TimeZone string
	Duration             time.Duration
	Until                string
	Floor                int
}

// Floors replays windows over Year. At any time the group runs the largest Floor of the windows
// active then, or base when that is more, and never more than limit: a scaling schedule raises
// the fewest instances the autoscaler recommends, and the autoscaler's maximum still bounds it.
// The year is taken as a cycle: a window that runs past its end goes on at its start, as the
// same window a year before would. A window that lasts a year or more is active all the time.
func Floors(base, limit int, windows []Window) (Result, error) {
	type edge struct {
		at   time.Time
		i    int
		open bool
	}
	start, end := yearBounds()
	year := end.Sub(start)
	active := make([]int, len(windows))
	var edges []edge
	runs, expanded := 0, 0 // starts; starts and ends
	for i, w := range windows {
		times, err := runTimes(Action{Name: w.Name, Cron: w.Cron, TimeZone: w.TimeZone})
		if err != nil {
			return Result{}, err
		}
		var ends []time.Time
		var until cron.Schedule // for the end after the year's last
		if w.Until != "" {
			if ends, err = runTimes(Action{Name: w.Name, Cron: w.Until, TimeZone: w.TimeZone}); err != nil {
				return Result{}, err
			}
			until, _ = parse(w.Until, w.TimeZone) // it parsed for ends
			if len(ends) == 0 {
				return Result{}, fmt.Errorf("%s: end %q never comes in the year", w.Name, w.Until)
			}
		}
		runs += len(times)
		if expanded += len(times) + len(ends); expanded > MaxRuns {
			return Result{}, fmt.Errorf("%s: recurrence %q: the schedules start more than %d times a year, more than gpuguard replays", w.Name, w.Cron, MaxRuns)
		}
		switch {
		case len(times) == 0 || w.Until == "" && w.Duration <= 0:
			continue
		case w.Until == "" && w.Duration >= year:
			active[i]++
			continue
		}
		for _, t := range times {
			closes := t.Add(w.Duration)
			if ends != nil {
				// The first end after the start: in the next year, after the year's last end.
				if k := sort.Search(len(ends), func(j int) bool { return ends[j].After(t) }); k < len(ends) {
					closes = ends[k]
				} else {
					closes = until.Next(t) // ends recur, so there is one
				}
			}
			edges = append(edges, edge{t, i, true})
			if !closes.After(end) {
				edges = append(edges, edge{closes, i, false})
				continue
			}
			// The part past the year's end is this window's part at its start.
			edges = append(edges, edge{start, i, true}, edge{start.Add(closes.Sub(end)), i, false})
		}
	}
	slices.SortFunc(edges, func(x, y edge) int { return x.at.Compare(y.at) })
	level := func() int {
		n := base
		for i, a := range active {
			if a > 0 {
				n = max(n, windows[i].Floor)
			}
		}
		return min(n, limit)
	}
	res := Result{MaxSize: limit, AverageMax: float64(limit), Runs: runs, Levels: map[int]float64{}}
	var sum float64 // instance-seconds
	measured := false
	hold := func(n int, d time.Duration) {
		if d <= 0 {
			return
		}
		sum += float64(n) * d.Seconds()
		res.Levels[n] += d.Seconds() / year.Seconds()
		if !measured {
			res.Peak, res.Low, measured = n, n, true
		}
		res.Peak, res.Low = max(res.Peak, n), min(res.Low, n)
	}
	last := start
	for k := 0; k < len(edges); {
		at := edges[k].at
		hold(level(), at.Sub(last))
		last = at
		for ; k < len(edges) && edges[k].at.Equal(at); k++ {
			if edges[k].open {
				active[edges[k].i]++
			} else {
				active[edges[k].i]--
			}
		}
	}
	hold(level(), end.Sub(last))
	res.Average = sum / year.Seconds()
	return res, nil
}
