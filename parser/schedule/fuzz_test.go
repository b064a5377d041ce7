package schedule

import (
	"math"
	"testing"
	"time"
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

// Any recurrence, zone, duration and floors: an error or a result between the base and the
// limit, never a panic or a hang.
func FuzzFloors(f *testing.F) {
	f.Add("0 8 * * 1-5", "Europe/Berlin", int32(36000), int8(4), "0 22 31 12 *", int32(14400), "0 18 * * 1-5")
	f.Add("*/30 * * * *", "", int32(300), int8(9), "@weekly", int32(-5), "0 12 * * 5")
	f.Fuzz(func(t *testing.T, cron, zone string, seconds int32, floor int8, other string, otherSeconds int32, until string) {
		windows := []Window{
			{Name: "a", Cron: cron, TimeZone: zone, Duration: time.Duration(seconds) * time.Second, Floor: int(floor)},
			{Name: "b", Cron: other, Duration: time.Duration(otherSeconds) * time.Second, Floor: 2},
			{Name: "c", Cron: cron, TimeZone: zone, Until: until, Floor: 3},
		}
		res, err := Floors(1, 6, windows)
		if err != nil {
			return
		}
		if math.IsNaN(res.Average) || res.Low < 1 || res.Peak > 6 || res.Average < float64(res.Low)-1e-9 || res.Average > float64(res.Peak)+1e-9 {
			t.Fatalf("%+v", res)
		}
	})
}
