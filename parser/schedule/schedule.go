package schedule

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
)

// Unchanged, as an Action's Min, Max or Desired, leaves that value as it is (Auto Scaling's -1).
const Unchanged = -1

// Size is a group's size limits and the number of instances it runs.
type Size struct {
	Min, Max, Desired int
}

// Action is one recurring scheduled action: at every time Cron names (five fields: minute, hour,
// day of month, month, day of week; in TimeZone, UTC when empty) it sets the group's limits and
// desired capacity, each Unchanged when it leaves that one alone.
// https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-scheduled-scaling.html
type Action struct {
	Name              string
	Cron, TimeZone    string
	Min, Max, Desired int
}

// Result is what a year of the actions does to the group.
type Result struct {
	// Average is the number of instances the group runs, averaged over the year.
	Average float64
	// Peak and Low are the most and the fewest instances it runs at any time.
	Peak, Low int
	// MaxSize is the largest maximum size the group has at any time, and AverageMax its
	// maximum size averaged over the year: what the group may run, where Average is what it
	// runs at the least.
	MaxSize    int
	AverageMax float64
	// Runs counts the actions' runs over the year.
	Runs int
	// Levels is the share of the year the group runs each number of instances (Floors only):
	// for a count that is not in proportion to them (a workload's pods split between subsets).
	Levels map[int]float64
}

// MaxRuns bounds the runs of all actions over the year: an action every minute is 525,600 runs,
// which no scaling schedule needs; more is refused rather than replayed.
const MaxRuns = 200_000

// Year is the year the actions are replayed over: a whole year, so that weekly and monthly
// schedules both average out (the same year parser/kubernetes counts CronJob runs in).
const Year = 2026

// Simulate replays the actions over Year from the group's size as declared, in time order (runs
// at the same time in the order given), and returns the average, peak and low. After each run
// the group keeps its desired capacity within its limits, as Auto Scaling does. The year is
// replayed twice and measured the second time, so that it starts where a year of the schedule
// leaves the group, not where the configuration does. An action that never runs in the year
// (30 February) changes nothing; one whose expression does not parse is an error naming it.
func Simulate(declared Size, actions []Action) (Result, error) {
	type run struct {
		at time.Time
		i  int
	}
	var runs []run
	for i, a := range actions {
		times, err := runTimes(a)
		if err != nil {
			return Result{}, err
		}
		if len(runs)+len(times) > MaxRuns {
			return Result{}, fmt.Errorf("%s: recurrence %q: the actions run more than %d times a year, more than gpuguard replays", a.Name, a.Cron, MaxRuns)
		}
		for _, t := range times {
			runs = append(runs, run{t, i})
		}
	}
	slices.SortStableFunc(runs, func(x, y run) int {
		if c := x.at.Compare(y.at); c != 0 {
			return c
		}
		return cmp.Compare(x.i, y.i)
	})
	size := declared
	apply := func(a Action) {
		if a.Min != Unchanged {
			size.Min = a.Min
		}
		if a.Max != Unchanged {
			size.Max = a.Max
		}
		if a.Desired != Unchanged {
			size.Desired = a.Desired
		}
		size.Desired = max(min(size.Desired, size.Max), size.Min)
	}
	for _, r := range runs { // the first year: where the schedule leaves the group
		apply(actions[r.i])
	}
	start, end := yearBounds()
	res := Result{Peak: size.Desired, Low: size.Desired, MaxSize: size.Max, Runs: len(runs)}
	var sum, sumMax float64 // instance-seconds
	last := start
	for k, r := range runs {
		sum += float64(size.Desired) * r.at.Sub(last).Seconds()
		sumMax += float64(size.Max) * r.at.Sub(last).Seconds()
		last = r.at
		apply(actions[r.i])
		if k+1 < len(runs) && runs[k+1].at.Equal(r.at) {
			continue // the group holds only what the last run at this time leaves
		}
		res.Peak, res.Low, res.MaxSize = max(res.Peak, size.Desired), min(res.Low, size.Desired), max(res.MaxSize, size.Max)
	}
	sum += float64(size.Desired) * end.Sub(last).Seconds()
	sumMax += float64(size.Max) * end.Sub(last).Seconds()
	res.Average, res.AverageMax = sum/end.Sub(start).Seconds(), sumMax/end.Sub(start).Seconds()
	return res, nil
}

func yearBounds() (start, end time.Time) {
	start = time.Date(Year, 1, 1, 0, 0, 0, 0, time.UTC)
	return start, start.AddDate(1, 0, 0)
}

// runTimes lists the times an action runs in Year. Stepping robfig/cron through a year takes
// microseconds a run, and many groups share a schedule (office hours, in one zone): the times are
// kept by expression and zone.
func runTimes(a Action) ([]time.Time, error) {
	key := a.TimeZone + "\x00" + a.Cron
	if v, ok := cache.Load(key); ok {
		c := v.(cached)
		if c.err != nil {
			return nil, fmt.Errorf("%s: %w", a.Name, c.err)
		}
		return c.times, nil
	}
	times, err := expand(a.Cron, a.TimeZone)
	cache.Store(key, cached{times, err})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name, err)
	}
	return times, nil
}

type cached struct {
	times []time.Time
	err   error
}

var cache sync.Map

// parse reads a five-field cron expression in a zone (UTC when empty).
func parse(expr, zone string) (cron.Schedule, error) {
	spec := expr
	if zone != "" {
		spec = "CRON_TZ=" + zone + " " + expr
	}
	s, err := cron.ParseStandard(spec)
	if err != nil {
		return nil, fmt.Errorf("recurrence %q: %w", expr, err)
	}
	if _, every := s.(cron.ConstantDelaySchedule); every {
		return nil, fmt.Errorf("recurrence %q: @every is not a cron expression a scaling schedule takes", expr)
	}
	return s, nil
}

func expand(expr, zone string) ([]time.Time, error) {
	s, err := parse(expr, zone)
	if err != nil {
		return nil, err
	}
	start, end := yearBounds()
	var times []time.Time
	for t := s.Next(start.Add(-time.Second)); !t.IsZero() && t.Before(end); t = s.Next(t) {
		if len(times) == MaxRuns {
			return nil, fmt.Errorf("recurrence %q: the actions run more than %d times a year, more than gpuguard replays", expr, MaxRuns)
		}
		times = append(times, t)
	}
	return times, nil
}
