package kubernetes

import (
	"fmt"
	"math/bits"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
)

// runsPerMonth counts how often a CronJob schedule fires in an average month: the runs over
// the year 2026 divided by 12, so that weekly schedules come out at 52/12 rather than 4 or 5.
// Schedules are parsed by robfig/cron (five fields, @hourly-style descriptors, the CronJob's
// timeZone as CRON_TZ). Rather than stepping through a year of activations one by one, it
// counts matching days and multiplies by the matching hours and minutes of each day: exact for
// the standard syntax except for the hour a daylight-saving change skips or repeats, and it
// takes microseconds. Results are cached by schedule.
func runsPerMonth(schedule, timeZone string) (float64, error) {
	key := timeZone + "\x00" + schedule
	if v, ok := cronCache.Load(key); ok {
		r := v.(cronResult)
		return r.runs, r.err
	}
	runs, err := countRuns(schedule, timeZone)
	cronCache.Store(key, cronResult{runs, err})
	return runs, err
}

type cronResult struct {
	runs float64
	err  error
}

var cronCache sync.Map

// starBit is robfig/cron's marker for a day field written "*" (or "?").
const starBit = 1 << 63

func countRuns(schedule, timeZone string) (float64, error) {
	spec := schedule
	if timeZone != "" {
		spec = "CRON_TZ=" + timeZone + " " + schedule
	}
	sched, err := cron.ParseStandard(spec)
	if err != nil {
		return 0, fmt.Errorf("schedule %q: %w", schedule, err)
	}
	switch s := sched.(type) {
	case cron.ConstantDelaySchedule:
		if s.Delay <= 0 {
			return 0, fmt.Errorf("schedule %q: no delay", schedule)
		}
		return float64(730*time.Hour) / float64(s.Delay), nil
	case *cron.SpecSchedule:
		perDay := bits.OnesCount64(s.Second&(1<<60-1)) * bits.OnesCount64(s.Minute&(1<<60-1)) * bits.OnesCount64(s.Hour&(1<<24-1))
		days := 0
		for d := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC); d.Year() == 2026; d = d.AddDate(0, 0, 1) {
			if 1<<uint(d.Month())&s.Month == 0 {
				continue
			}
			domMatch := 1<<uint(d.Day())&s.Dom > 0
			dowMatch := 1<<uint(d.Weekday())&s.Dow > 0
			// robfig/cron's rule (and Vixie cron's): with both day fields restricted, either
			// may match; with one of them "*", both must.
			if s.Dom&starBit > 0 || s.Dow&starBit > 0 {
				if !(domMatch && dowMatch) {
					continue
				}
			} else if !(domMatch || dowMatch) {
				continue
			}
			days++
		}
		return float64(days*perDay) / 12, nil
	}
	return 0, fmt.Errorf("schedule %q: unsupported schedule type", schedule)
}
