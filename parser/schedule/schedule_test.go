package schedule

import (
	"cmp"
	"math"
	"strings"
	"testing"
)

// 2026 starts on a Thursday: 52 weeks and one weekday, 261 weekdays.
const weekdays2026 = 261

func TestSimulate(t *testing.T) {
	up := Action{Name: "up", Cron: "0 8 * * 1-5", Min: Unchanged, Max: Unchanged, Desired: 4}
	down := Action{Name: "down", Cron: "0 18 * * 1-5", Min: Unchanged, Max: Unchanged, Desired: 0}
	inZone := func(a Action, tz string) Action { a.TimeZone = tz; return a }
	for _, tc := range []struct {
		name     string
		declared Size
		actions  []Action
		average  float64
		peak     int
		low      int
		maxSize  int
		// averageMax is the maximum size averaged over the year; 0: maxSize all year.
		averageMax float64
	}{
		{name: "office hours: 4 instances ten hours a weekday", declared: Size{0, 4, 2}, actions: []Action{up, down},
			average: 4 * weekdays2026 * 10.0 / 8760, peak: 4, low: 0, maxSize: 4},
		{name: "the same in New York time: daylight saving moves both runs alike", declared: Size{0, 4, 2},
			actions: []Action{inZone(up, "America/New_York"), inZone(down, "America/New_York")},
			average: 4 * weekdays2026 * 10.0 / 8760, peak: 4, low: 0, maxSize: 4},
		{name: "the year starts where the schedule leaves the group, not where it is declared", declared: Size{0, 4, 4},
			actions: []Action{down}, average: 0, peak: 0, low: 0, maxSize: 4},
		{name: "desired capacity is kept within the limits an action sets", declared: Size{0, 8, 0},
			actions: []Action{
				{Name: "floor", Cron: "0 0 * * *", Min: 2, Max: Unchanged, Desired: Unchanged},
				{Name: "lift", Cron: "0 12 * * *", Min: 0, Max: Unchanged, Desired: Unchanged},
			},
			average: 2, peak: 2, low: 2, maxSize: 8},
		{name: "runs at the same time apply in order: the later wins", declared: Size{0, 8, 1},
			actions: []Action{
				{Name: "a", Cron: "0 0 * * *", Min: Unchanged, Max: Unchanged, Desired: 6},
				{Name: "b", Cron: "0 0 * * *", Min: Unchanged, Max: Unchanged, Desired: 3},
			},
			average: 3, peak: 3, low: 3, maxSize: 8},
		{name: "a larger maximum for the nights, where the group may grow", declared: Size{1, 2, 1},
			actions: []Action{
				{Name: "night", Cron: "0 22 * * *", Min: 1, Max: 10, Desired: 6},
				{Name: "day", Cron: "0 6 * * *", Min: 1, Max: 2, Desired: 1},
			},
			average: (8*6 + 16*1) / 24.0, peak: 6, low: 1, maxSize: 10, averageMax: (8*10 + 16*2) / 24.0},
		{name: "an action that never runs changes nothing", declared: Size{0, 4, 3},
			actions: []Action{{Name: "never", Cron: "0 0 30 2 *", Min: Unchanged, Max: Unchanged, Desired: 0}},
			average: 3, peak: 3, low: 3, maxSize: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Simulate(tc.declared, tc.actions)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(res.Average-tc.average) > 1e-9 || res.Peak != tc.peak || res.Low != tc.low || res.MaxSize != tc.maxSize {
				t.Errorf("average %.6f, peak %d, low %d, max size %d; want %.6f, %d, %d, %d", res.Average, res.Peak, res.Low, res.MaxSize, tc.average, tc.peak, tc.low, tc.maxSize)
			}
			if want := cmp.Or(tc.averageMax, float64(tc.maxSize)); math.Abs(res.AverageMax-want) > 1e-9 {
				t.Errorf("average maximum %.6f, want %.6f", res.AverageMax, want)
			}
		})
	}
}

func TestSimulateRefuses(t *testing.T) {
	for _, tc := range []struct {
		action Action
		want   string
	}{
		{Action{Name: "bad", Cron: "0 25 * * *"}, `bad: recurrence "0 25 * * *": `},
		{Action{Name: "every", Cron: "@every 1h"}, "@every is not a cron expression a scaling schedule takes"},
		{Action{Name: "busy", Cron: "* * * * *"}, "more than 200000 times a year"},
		{Action{Name: "zone", Cron: "0 8 * * *", TimeZone: "Mars/Olympus"}, `zone: recurrence "0 8 * * *": `},
	} {
		if _, err := Simulate(Size{0, 1, 1}, []Action{tc.action}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.action.Name, err, tc.want)
		}
	}
}

// The bound is on all the actions' runs together.
func TestSimulateBoundsAllRuns(t *testing.T) {
	every4 := Action{Name: "a", Cron: "*/4 * * * *", Min: Unchanged, Max: Unchanged, Desired: 1} // 131,400 runs
	every6 := Action{Name: "b", Cron: "*/6 * * * *", Min: Unchanged, Max: Unchanged, Desired: 2} // 87,600
	if _, err := Simulate(Size{0, 2, 1}, []Action{every4}); err != nil {
		t.Fatalf("one action under the bound: %v", err)
	}
	if _, err := Simulate(Size{0, 2, 1}, []Action{every4, every6}); err == nil || !strings.Contains(err.Error(), "b: ") {
		t.Errorf("error %v, want the bound, at the action that passes it", err)
	}
}

func BenchmarkSimulateOfficeHours(b *testing.B) {
	actions := []Action{
		{Name: "up", Cron: "0 8 * * 1-5", TimeZone: "Europe/Berlin", Min: Unchanged, Max: Unchanged, Desired: 4},
		{Name: "down", Cron: "0 18 * * 1-5", TimeZone: "Europe/Berlin", Min: Unchanged, Max: Unchanged, Desired: 0},
	}
	for b.Loop() {
		if _, err := Simulate(Size{0, 4, 2}, actions); err != nil {
			b.Fatal(err)
		}
	}
}
