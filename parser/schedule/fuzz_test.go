package schedule

import (
	"math"
	"testing"
)

// Any recurrence, zone and sizes: an error or a result within the sizes, never a panic or a hang.
func FuzzSimulate(f *testing.F) {
	f.Add("0 8 * * 1-5", "Europe/Berlin", int8(-1), int8(-1), int8(4), "0 19 * * 1-5")
	f.Add("30 0 1 1,6,12 *", "", int8(0), int8(3), int8(2), "@daily")
	f.Add("0 0 30 2 *", "America/New_York", int8(2), int8(1), int8(5), "59 23 31 12 *")
	f.Fuzz(func(t *testing.T, cron, zone string, lo, hi, desired int8, other string) {
		clamp := func(n int8) int { return max(int(n), Unchanged) }
		actions := []Action{
			{Name: "a", Cron: cron, TimeZone: zone, Min: clamp(lo), Max: clamp(hi), Desired: clamp(desired)},
			{Name: "b", Cron: other, Min: Unchanged, Max: Unchanged, Desired: 1},
		}
		res, err := Simulate(Size{Min: 0, Max: 10, Desired: 3}, actions)
		if err != nil {
			return
		}
		if math.IsNaN(res.Average) || res.Average < float64(res.Low)-1e-9 || res.Average > float64(res.Peak)+1e-9 || res.Runs > MaxRuns {
			t.Fatalf("%+v", res)
		}
	})
}
