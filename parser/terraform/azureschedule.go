package terraform

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/schedule"
	"github.com/zclconf/go-cty/cty"
)

// azureDefaultZone is the time zone an autoscale profile's recurrence is in when it names none
// (the azurerm provider's default).
// https://registry.terraform.io/providers/hashicorp/azurerm/latest/docs/resources/monitor_autoscale_setting
const azureDefaultZone = "Pacific Standard Time"

// azureSchedule replays the recurring profiles of an autoscale setting (addr): a profile with a
// recurrence starts at the days, hours and minutes it names and holds until the next one starts,
// and a scale set outside the new profile's capacity is scaled into it. The default profile (no
// recurrence, no fixed date) holds before any of them starts.
// https://learn.microsoft.com/azure/azure-monitor/autoscale/autoscale-multiprofile
// Each profile is priced at its capacity minimum, as a setting with one profile is: its metric
// rules may run more, up to its maximum. A fixed-date profile is one window, not a weekly
// schedule, and is left out. It reports whether the setting has recurring profiles and they were
// applied; where one cannot be read, it says why, and the caller prices the setting as if it had
// none.
func azureSchedule(r *parser.Resource, addr string, profiles []*view, f *autoscaleFields) bool {
	var actions []schedule.Action
	var names []string
	declared := schedule.Size{Max: math.MaxInt32, Desired: r.Quantity}
	for _, p := range profiles {
		name, _ := p.str("name")
		rec := p.blocks("recurrence")
		if len(rec) == 0 {
			if len(p.blocks(f.fixedDate)) > 0 {
				r.Note("%s's profile %q is for a fixed date: it is left out of the scale set's schedule", addr, name)
			} else if lo, ok := p.num("capacity", "minimum"); ok {
				hi, _ := p.num("capacity", "maximum")
				declared = schedule.Size{Min: lo, Max: max(hi, lo), Desired: max(r.Quantity, lo)}
			}
			continue
		}
		sched, why := f.schedule(rec[0])
		cron := ""
		if why == "" {
			cron, why = azureRecurrence(sched)
		}
		if why == "" {
			zone, windows, zwhy := azureZone(sched, f)
			lo, ok := p.num("capacity", "minimum")
			hi, ok2 := p.num("capacity", "maximum")
			switch {
			case zwhy != "":
				why = zwhy
			case !ok || !ok2:
				why = "capacity is not known (a minimum and a maximum are needed)"
			default:
				actions = append(actions, schedule.Action{Name: fmt.Sprintf("%s profile %q", addr, name), Cron: cron, TimeZone: zone, Min: lo, Max: max(hi, lo), Desired: lo})
				names = append(names, fmt.Sprintf("%q (%q, %s)", name, cron, windows))
				continue
			}
		}
		r.Note("%s's profile %q: %s: its schedule is not applied, and the scale set is priced at its smallest capacity minimum", addr, name, why)
		return false
	}
	if len(actions) == 0 {
		return false
	}
	// Of profiles that start at the same time, the first applies; Simulate keeps the last.
	slices.Reverse(actions)
	res, err := schedule.Simulate(declared, actions)
	if err != nil {
		r.Note("%s's recurring profiles cannot be replayed (%v): the scale set is priced at its smallest capacity minimum", addr, err)
		return false
	}
	schedule.Price(r, res, addr+"'s profiles "+strings.Join(names, ", "), "instance")
	return true
}

// autoscaleFields names an autoscale setting's fields: azurerm_monitor_autoscale_setting's
// blocks, or ARM's properties (an azapi_resource's body, an Azure Service Operator
// Autoscalesetting's spec).
// https://learn.microsoft.com/rest/api/monitor/autoscale-settings/create-or-update (read
// 2026-11-27): properties.enabled (false by default), profiles[] with name, capacity {minimum,
// maximum, default} as strings, fixedDate, and recurrence {frequency: Week, schedule {timeZone,
// days, hours, minutes}}.
type autoscaleFields struct {
	enabled, profiles []any
	fixedDate         string
	// scheduleIn is the field of the recurrence that holds its days, hours and minutes: "" when
	// the recurrence holds them itself (azurerm).
	scheduleIn string
	// frequency is the field that must say "Week" ("" when there is none).
	frequency         string
	timeZone          string
	defaultZone       string // the zone of a recurrence that names none; "" when one is required
	disabledUnlessSet bool   // a setting that does not set enabled does not scale
}

var azurermAutoscale = autoscaleFields{enabled: []any{"enabled"}, profiles: []any{"profile"}, fixedDate: "fixed_date",
	timeZone: "timezone", defaultZone: azureDefaultZone}

var armAutoscale = autoscaleFields{enabled: []any{"properties", "enabled"}, profiles: []any{"properties", "profiles"}, fixedDate: "fixedDate",
	scheduleIn: "schedule", frequency: "frequency", timeZone: "timeZone", disabledUnlessSet: true}

// schedule is the part of a recurrence that names its days, hours, minutes and time zone, or why
// it cannot be read as a weekly one.
func (f *autoscaleFields) schedule(rec *view) (*view, string) {
	if f.frequency != "" {
		if v, ok := rec.quiet().str(f.frequency); ok && !strings.EqualFold(v, "Week") {
			return nil, fmt.Sprintf("its %s is %q, and autoscale recurs weekly only", f.frequency, v)
		}
	}
	if f.scheduleIn == "" {
		return rec, ""
	}
	s := rec.blocks(f.scheduleIn)
	if len(s) == 0 {
		return nil, "its recurrence has no " + f.scheduleIn
	}
	return s[0], ""
}

// azureWeekdays are the days a recurrence names, as cron numbers them.
var azureWeekdays = map[string]int{"sunday": 0, "monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6}

// azureRecurrence reads a recurrence's days, hours and minutes as a cron expression (it starts at
// every minute listed of every hour listed of every day listed), or says why it cannot.
func azureRecurrence(rec *view) (cron, why string) {
	var fields [3]string
	for i, f := range []struct {
		attr   string
		parse  func(string) (int, bool)
		within string
	}{
		{"minutes", number(0, 59), "minutes of 0 to 59"},
		{"hours", number(0, 23), "hours of 0 to 23"},
		{"days", func(s string) (int, bool) { d, ok := azureWeekdays[strings.ToLower(s)]; return d, ok }, "days from Monday to Sunday"},
	} {
		if v, ok := at(rec.obj, f.attr); ok && !v.IsWhollyKnown() {
			return "", "its " + f.attr + " are known only at apply"
		}
		list, _ := rec.quiet().strList(f.attr)
		var nums []int
		for _, s := range list {
			n, ok := f.parse(s)
			if !ok {
				return "", fmt.Sprintf("its %s has %q, not one of the %s", f.attr, s, f.within)
			}
			nums = append(nums, n)
		}
		if len(nums) == 0 {
			return "", "it names no " + f.attr
		}
		slices.Sort(nums)
		var text []string
		for _, n := range slices.Compact(nums) {
			text = append(text, strconv.Itoa(n))
		}
		fields[i] = strings.Join(text, ",")
	}
	return fields[0] + " " + fields[1] + " * * " + fields[2], ""
}

// number parses a whole number from lo to hi.
func number(lo, hi int) func(string) (int, bool) {
	return func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= lo && n <= hi
	}
}

// azureZone is the tz database zone of a recurrence's Windows time zone, and that zone's name.
func azureZone(rec *view, f *autoscaleFields) (zone, name, why string) {
	v, ok := at(rec.obj, f.timeZone)
	if ok && !v.IsWhollyKnown() {
		return "", "", "its " + f.timeZone + " is known only at apply"
	}
	name = f.defaultZone
	if ok {
		if v, _ = v.UnmarkDeep(); !v.IsNull() && v.Type() == cty.String {
			name = v.AsString()
		}
	}
	if name == "" {
		return "", "", "its schedule names no " + f.timeZone
	}
	zone, found := windowsZones[name]
	if !found {
		return "", name, fmt.Sprintf("its timezone %q is not a Windows time zone gpuguard knows", name)
	}
	return zone, name, ""
}
