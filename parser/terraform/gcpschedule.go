package terraform

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/schedule"
)

// gcpScalingSchedules applies an autoscaler's scaling_schedules (addr is the autoscaler) to the
// instance group it scales, which runs base instances without them: from every time a
// schedule's cron expression names (in its time_zone, UTC by default), for duration_sec, the
// autoscaler recommends at least min_required_replicas, within max_replicas (limit, which the
// caller has read). The group is priced by time (schedule.Price). In mode ONLY_SCALE_OUT (or the
// older ONLY_UP) the autoscaler never scales in, so the group keeps its peak once a schedule has
// raised it. A disabled schedule changes nothing; one that runs once (its cron expression names
// a year) is left out. A schedule whose expression, zone, duration or replicas are known only at
// apply, or that cannot be replayed, leaves the group at base, with a note saying why.
// https://cloud.google.com/compute/docs/autoscaler/scaling-schedules
// https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/compute_autoscaler
func gcpScalingSchedules(r *parser.Resource, addr string, a *view, base, limit int) {
	blocks := a.blocks("autoscaling_policy", "scaling_schedules")
	if len(blocks) == 0 {
		return
	}
	var windows []schedule.Window
	var names []string
	for _, s := range blocks {
		name, _ := s.str("name")
		if off, _ := s.boolean("disabled"); off {
			r.Note("%s's scaling schedule %q is disabled: it is left out", addr, name)
			continue
		}
		for _, attr := range []string{"schedule", "time_zone", "duration_sec", "min_required_replicas"} {
			if v, ok := at(s.obj, attr); ok && !v.IsWhollyKnown() {
				r.Note("%s's scaling schedule %q: its %s is known only at apply: the schedules are not applied", addr, name, attr)
				return
			}
		}
		expr, _ := s.str("schedule")
		if fields := strings.Fields(expr); len(fields) == 6 {
			r.Note("%s's scaling schedule %q runs once (%q names a year): it is left out", addr, name, expr)
			continue
		}
		zone, _ := s.str("time_zone")
		seconds, ok := s.num("duration_sec")
		floor, ok2 := s.num("min_required_replicas")
		if !ok || !ok2 {
			r.Note("%s's scaling schedule %q has no duration_sec or min_required_replicas: the schedules are not applied", addr, name)
			return
		}
		windows = append(windows, schedule.Window{Name: fmt.Sprintf("%s schedule %q", addr, name), Cron: expr, TimeZone: zone,
			Duration: time.Duration(seconds) * time.Second, Floor: floor})
		names = append(names, fmt.Sprintf("%q (%q%s, for %s, at least %d)", name, expr, ", "+schedule.Zone(zone), shortDuration(time.Duration(seconds)*time.Second), floor))
	}
	if len(windows) == 0 {
		return
	}
	res, err := schedule.Floors(base, limit, windows)
	if err != nil {
		r.Note("%s's scaling schedules cannot be replayed (%v): the group is priced at %d", addr, err, base)
		return
	}
	if mode, _ := a.str("autoscaling_policy", "mode"); strings.EqualFold(mode, "ONLY_SCALE_OUT") || strings.EqualFold(mode, "ONLY_UP") {
		r.Note("%s is in mode %s: it does not scale in when a schedule ends, and the group keeps its peak", addr, mode)
		res.Average, res.Low = float64(res.Peak), res.Peak
	}
	schedule.Price(r, res, addr+"'s scaling schedules "+strings.Join(names, ", "), "instance")
}

// shortDuration writes a duration without its zero parts: 11h, 1h30m, 5m.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
