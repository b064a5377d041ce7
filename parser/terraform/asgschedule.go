package terraform

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/schedule"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// asgScheduleType is a scheduled action of an Auto Scaling group: at the times its recurrence
// names, it sets the group's minimum, maximum and desired capacity. Teams scale GPU groups down
// at night and up in the morning this way.
// https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/autoscaling_schedule
const asgScheduleType = "aws_autoscaling_schedule"

// autoScalingSchedule applies the aws_autoscaling_schedules that name the Auto Scaling group
// being mapped (an aws_autoscaling_group, or an EKS managed node group's): package schedule
// replays them over a year from the group's declared size. The group is then priced as its
// peak number of instances for the hours a month that give the same instance-hours as the
// schedule: 4 instances ten hours every weekday are 4 instances for 217 hours. Its maximum
// size is the largest one the actions set, when over the group's own. Any action whose
// recurrence or sizes are known only at apply, or that does not parse, leaves the group at its
// declared size, with a note saying why.
func (c *mapContext) autoScalingSchedule(r *parser.Resource, declared schedule.Size, name string) {
	insts := c.asgReferrers(asgScheduleType, name)
	if len(insts) == 0 {
		return
	}
	var actions []schedule.Action
	var names []string
	// notApplied says why an action keeps the whole schedule from being replayed.
	notApplied := func(addr, attr, why string) {
		r.Note("%s's %s %s: the group's schedule is not applied, and it is priced at its declared size", addr, attr, why)
	}
	for _, inst := range insts {
		w := &view{obj: inst.value}
		recurrence, ok := w.str("recurrence")
		switch {
		case !ok && w.has("recurrence"):
			notApplied(inst.addr, "recurrence", "is known only at apply")
			return
		case !ok:
			r.Note("%s runs once (no recurrence): it is left out of the group's schedule", inst.addr)
			continue
		}
		a := schedule.Action{Name: inst.addr, Cron: recurrence}
		if tz, ok := w.str("time_zone"); ok {
			a.TimeZone = tz
		} else if w.has("time_zone") {
			notApplied(inst.addr, "time_zone", "is known only at apply")
			return
		}
		for _, f := range []struct {
			attr string
			to   *int
		}{{"min_size", &a.Min}, {"max_size", &a.Max}, {"desired_capacity", &a.Desired}} {
			n, why := scheduledSize(w, f.attr)
			if why != "" {
				notApplied(inst.addr, f.attr, why)
				return
			}
			*f.to = n
		}
		if a.Desired != schedule.Unchanged && (a.Min != schedule.Unchanged && a.Desired < a.Min || a.Max != schedule.Unchanged && a.Desired > a.Max) {
			r.Note("%s sets desired capacity %d outside its own limits (min %d, max %d; the aws provider sends 0 for one not set, -1 leaves it alone): Auto Scaling refuses such an action, and it is left out", inst.addr, a.Desired, a.Min, a.Max)
			continue
		}
		actions = append(actions, a)
		names = append(names, fmt.Sprintf("%s (%q%s)", inst.addr, recurrence, ", "+schedule.Zone(a.TimeZone)))
	}
	if len(actions) == 0 {
		return
	}
	res, err := schedule.Simulate(declared, actions)
	if err != nil {
		r.Note("its scheduled actions cannot be replayed (%v): it is priced at its declared size", err)
		return
	}
	if declared.Max != math.MaxInt32 && res.MaxSize != declared.Max {
		r.SetScaleMax(res.MaxSize, "max_size of its scheduled actions")
	}
	schedule.Price(r, res, strings.Join(names, ", "), "instance")
}

// scheduledSize reads a scheduled action's min_size, max_size or desired_capacity: unset, the
// aws provider sends 0; -1 leaves the group's value alone (schedule.Unchanged). why says what
// keeps it from being read.
func scheduledSize(w *view, attr string) (n int, why string) {
	v, ok := at(w.obj, attr)
	if !ok || v.IsKnown() && v.IsNull() {
		return 0, ""
	}
	if !v.IsWhollyKnown() {
		return 0, "is known only at apply"
	}
	v, _ = v.Unmark()
	nv, err := convert.Convert(v, cty.Number)
	if err != nil {
		return 0, "is not a number"
	}
	bf := nv.AsBigFloat()
	i, acc := bf.Int64()
	if acc != big.Exact || i < schedule.Unchanged || i > math.MaxInt32 {
		return 0, fmt.Sprintf("is %s, not a whole number of instances (or -1)", bf.Text('g', -1))
	}
	return int(i), ""
}

// declaredSize is a group's size as its configuration declares it, for its schedule to start
// from: a maximum known only at apply bounds nothing (an unset or unknown minimum reads as 0).
func declaredSize(minSize, maxSize int, maxKnown bool, desired int) schedule.Size {
	if !maxKnown {
		maxSize = math.MaxInt32
	}
	return schedule.Size{Min: minSize, Max: maxSize, Desired: desired}
}
