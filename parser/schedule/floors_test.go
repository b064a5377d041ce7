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
			// The levels are the year's time at each size: they add up to it, and to the average.
			var share, average float64
			for n, s := range res.Levels {
				share, average = share+s, average+float64(n)*s
				if n < tc.low || n > tc.peak || s <= 0 {
					t.Errorf("level %d for %.6f of the year, outside %d to %d", n, s, tc.low, tc.peak)
				}
			}
			if math.Abs(share-1) > 1e-9 || math.Abs(average-res.Average) > 1e-9 {
				t.Errorf("levels %v: %.9f of the year, average %.6f", res.Levels, share, average)
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

// A window that lasts until the first end after its start (KEDA's cron trigger): from 08:00 to
// 18:00 on weekdays; over midnight from 22:00 to 06:00; and from the last start of the year to
// the first end of the next, which the year taken as a cycle places at its start.
func TestFloorsUntil(t *testing.T) {
	const year = 8760.0
	for _, tc := range []struct {
		name    string
		window  Window
		average float64
	}{
		{"office hours", Window{Name: "office", Cron: "0 8 * * 1-5", Until: "0 18 * * 1-5", TimeZone: "Europe/Berlin", Floor: 2}, 2 * weekdays2026 * 10 / year},
		{"over midnight", Window{Name: "night", Cron: "0 22 * * *", Until: "0 6 * * *", Floor: 3}, 3 * 8 / 24.0},
		{"the last start's end is in the next year", Window{Name: "weekly", Cron: "0 12 * * 4", Until: "0 12 * * 5", Floor: 1},
			// 2026's 53 Thursdays each run a day; the last, 31 December, runs to Friday 1
			// January 2027 at noon, which the year taken as a cycle places at its start.
			53 * 24 / year},
		{"an end at the start's own time does not close it", Window{Name: "day", Cron: "0 8 * * *", Until: "0 8,18 * * *", Floor: 1}, 10 / 24.0},
		{"an end before any start: the first start still waits for the next end", Window{Name: "late", Cron: "0 20 * * *", Until: "0 8 * * *", Floor: 1}, 12 / 24.0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Floors(0, 10, []Window{tc.window})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(res.Average-tc.average) > 1e-9 || res.Peak != tc.window.Floor || res.Low != 0 {
				t.Errorf("average %.6f, peak %d, low %d; want %.6f, %d, 0", res.Average, res.Peak, res.Low, tc.average, tc.window.Floor)
			}
		})
	}
	if _, err := Floors(0, 10, []Window{{Name: "never", Cron: "0 8 * * *", Until: "0 0 30 2 *", Floor: 1}}); err == nil || !strings.Contains(err.Error(), `never: end "0 0 30 2 *" never comes in the year`) {
		t.Errorf("an end that never comes: %v", err)
	}
}
