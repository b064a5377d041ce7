package schedule

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestFloors(t *testing.T) {
	const year = 8760.0 // hours in 2026
	for _, tc := range []struct {
		name        string
		base, limit int
		windows     []Window
		average     float64
		peak, low   int
	}{
		{name: "4 instances ten hours a weekday over a floor of 1", base: 1, limit: 8,
			windows: []Window{{Name: "office", Cron: "0 8 * * 1-5", TimeZone: "Europe/Berlin", Duration: 10 * time.Hour, Floor: 4}},
			average: (4*weekdays2026*10 + (year - weekdays2026*10)) / year, peak: 4, low: 1},
		{name: "overlapping windows: the larger floor holds while both are active", base: 0, limit: 8,
			windows: []Window{
				{Name: "night", Cron: "0 0 * * *", Duration: 12 * time.Hour, Floor: 3},
				{Name: "day", Cron: "0 6 * * *", Duration: 12 * time.Hour, Floor: 5},
			},
			average: (6*3 + 12*5) / 24.0, peak: 5, low: 0},
		{name: "the autoscaler's maximum bounds a floor over it", base: 0, limit: 6,
			windows: []Window{{Name: "big", Cron: "0 0 * * *", Duration: 12 * time.Hour, Floor: 10}},
			average: 3, peak: 6, low: 0},
		{name: "a window past the year's end goes on at its start", base: 0, limit: 8,
			windows: []Window{{Name: "new-year", Cron: "0 22 31 12 *", Duration: 4 * time.Hour, Floor: 2}},
			average: 2 * 4 / year, peak: 2, low: 0},
		{name: "a window two years long is always active, and no longer", base: 1, limit: 8,
			windows: []Window{{Name: "always", Cron: "0 0 1 1 *", Duration: 800 * 24 * time.Hour, Floor: 3}},
			average: 3, peak: 3, low: 3},
		{name: "back-to-back windows leave no gap where one closes as the next opens", base: 1, limit: 8,
			windows: []Window{{Name: "daily", Cron: "0 0 * * *", Duration: 24 * time.Hour, Floor: 3}},
			average: 3, peak: 3, low: 3},
		{name: "the part of a window past the year's end overlaps the windows at its start", base: 0, limit: 8,
			windows: []Window{
				{Name: "new-year", Cron: "0 22 31 12 *", Duration: 4 * time.Hour, Floor: 2},
				{Name: "first-hour", Cron: "0 0 1 1 *", Duration: time.Hour, Floor: 5},
			},
			// 22:00 to 24:00 at 2; 00:00 to 01:00 at 5 (both active); 01:00 to 02:00 at 2.
			average: (2*2 + 5 + 2) / year, peak: 5, low: 0},
		{name: "a floor under the group's minimum changes nothing", base: 4, limit: 8,
			windows: []Window{{Name: "small", Cron: "0 8 * * *", Duration: time.Hour, Floor: 2}},
			average: 4, peak: 4, low: 4},
		{name: "a window that never starts changes nothing", base: 2, limit: 8,
			windows: []Window{{Name: "never", Cron: "0 0 30 2 *", Duration: time.Hour, Floor: 7}},
			average: 2, peak: 2, low: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Floors(tc.base, tc.limit, tc.windows)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(res.Average-tc.average) > 1e-9 || res.Peak != tc.peak || res.Low != tc.low || res.MaxSize != tc.limit || res.AverageMax != float64(tc.limit) {
				t.Errorf("average %.6f, peak %d, low %d, max size %d; want %.6f, %d, %d, %d", res.Average, res.Peak, res.Low, res.MaxSize, tc.average, tc.peak, tc.low, tc.limit)
			}
		})
	}
}

func TestFloorsRefuses(t *testing.T) {
	for _, tc := range []struct {
		windows []Window
		want    string
	}{
		{[]Window{{Name: "bad", Cron: "0 8 * *", Duration: time.Hour, Floor: 1}}, `bad: recurrence "0 8 * *": `},
		{[]Window{{Name: "zone", Cron: "0 8 * * *", TimeZone: "Mars/Olympus", Duration: time.Hour}}, `zone: recurrence "0 8 * * *": `},
		{[]Window{
			{Name: "a", Cron: "*/4 * * * *", Duration: time.Minute, Floor: 1}, // 131,400 starts
			{Name: "b", Cron: "*/6 * * * *", Duration: time.Minute, Floor: 1}, // 87,600
		}, "b: recurrence \"*/6 * * * *\": the schedules start more than 200000 times a year"},
	} {
		if _, err := Floors(0, 4, tc.windows); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func BenchmarkFloorsOfficeHours(b *testing.B) {
	windows := []Window{{Name: "office", Cron: "0 8 * * 1-5", TimeZone: "Europe/Berlin", Duration: 10 * time.Hour, Floor: 4}}
	for b.Loop() {
		if _, err := Floors(1, 8, windows); err != nil {
			b.Fatal(err)
		}
	}
}
