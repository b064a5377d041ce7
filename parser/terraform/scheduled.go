package terraform

import (
	"fmt"
	"math"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/schedule"
)

// monthHours is the month a scheduled group's hours are a share of: gpuguard's default month
// (estimator.DefaultHoursPerMonth, 730 hours).
const monthHours = 730.0

// priceScheduled prices a group from a year of its schedule (package schedule): its peak number
// of instances, for the hours a month that give the same instance-hours as the schedule: 4
// instances ten hours every weekday are 4 instances for 217 hours. by names the schedule in the
// note that says so. The group's maximum (r.ScaleMax, set before) is priced for the hours that
// give the schedule's maximum-hours when the schedule sets it, and all month when it is more
// than the schedule ever allows (a limit declared elsewhere).
func priceScheduled(r *parser.Resource, res schedule.Result, by string) {
	r.Quantity = res.Peak
	r.HoursPerMonth = sameHours(res.Average, res.Peak)
	if m := r.ScaleMax; m != nil {
		h := monthHours
		if s := sameHours(res.AverageMax, m.Quantity); m.Quantity == res.MaxSize && s > 0 {
			h = s
		}
		if r.HoursPerMonth > 0 || h < monthHours {
			m.HoursPerMonth = h
		}
	}
	instances := fmt.Sprintf("%d instances", res.Peak)
	if res.Peak == 1 {
		instances = "1 instance"
	}
	how := "priced as " + instances + " all month"
	switch {
	case res.Peak == 0:
		how = "it runs no instances"
	case r.HoursPerMonth > 0:
		how = fmt.Sprintf("priced as %s for %.2f hours a month, the same instance-hours", instances, r.HoursPerMonth)
	}
	r.Note("scheduled by %s: %d to %d instances, %.2f on average over a year: %s", by, res.Low, res.Peak, res.Average, how)
}

// sameHours is the hours a month n instances run to make an average of average instances over
// the year: 0 (all month) when that is the whole month.
func sameHours(average float64, n int) float64 {
	if n <= 0 || average >= float64(n)-1e-9 {
		return 0
	}
	return math.Round(monthHours*average/float64(n)*100) / 100
}

func inZone(tz string) string {
	if tz == "" {
		return ", UTC"
	}
	return ", " + tz
}
