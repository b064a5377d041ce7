package schedule

import (
	"fmt"
	"math"

	"github.com/gpuguard/gpuguard/parser"
)

// MonthHours is the month a scheduled group's hours are a share of: gpuguard's default month
// (estimator.DefaultHoursPerMonth, 730 hours, a twelfth of a year). Price marks the hours so
// (parser.Resource.CalendarHours), and the pricer scales them to a month the config sets.
const MonthHours = 730.0

// Price prices r from a year of its schedule: its peak number, for the hours a month that give
// the same instance-hours as the schedule (4 instances ten hours every weekday are 4 instances
// for 217 hours). by names the schedule and unit what r counts ("instance", "pod") in the note
// that says so. r's maximum (r.ScaleMax, set before) is priced for the hours that give the
// schedule's maximum-hours when the schedule sets it, and all month when it is more than the
// schedule ever allows (a limit declared elsewhere).
func Price(r *parser.Resource, res Result, by, unit string) {
	r.Quantity = res.Peak
	r.HoursPerMonth = SameHours(res.Average, res.Peak)
	r.CalendarHours = r.HoursPerMonth > 0
	if m := r.ScaleMax; m != nil {
		h := MonthHours
		if s := SameHours(res.AverageMax, m.Quantity); m.Quantity == res.MaxSize && s > 0 {
			h = s
		}
		if r.HoursPerMonth > 0 || h < MonthHours {
			m.HoursPerMonth = h
		}
	}
	count := fmt.Sprintf("%d %ss", res.Peak, unit)
	if res.Peak == 1 {
		count = "1 " + unit
	}
	how := "priced as " + count + " all month"
	switch {
	case res.Peak == 0:
		how = "it runs no " + unit + "s"
	case r.HoursPerMonth > 0:
		how = fmt.Sprintf("priced as %s for %.2f hours a month, the same %s-hours", count, r.HoursPerMonth, unit)
	}
	r.Note("scheduled by %s: %d to %d %ss, %.2f on average over a year: %s", by, res.Low, res.Peak, unit, res.Average, how)
}

// Zone names the time zone a schedule is in, for a note: UTC when it names none.
func Zone(tz string) string {
	if tz == "" {
		return "UTC"
	}
	return tz
}

// SameHours is the hours a month n run to make an average of average over the year: 0 (all
// month) when that is the whole month.
func SameHours(average float64, n int) float64 {
	if n <= 0 || average >= float64(n)-1e-9 {
		return 0
	}
	return math.Round(MonthHours*average/float64(n)*100) / 100
}
