package money

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseExact(t *testing.T) {
	cases := map[string]Micros{
		"21.957642":     21957642,
		"55.04":         55040000,
		"0.35":          350000,
		"3":             3000000,
		".5":            500000,
		"1.0000005":     1000001,
		"1.00000049":    1000000,
		"-2.5":          -2500000,
		"55.0400000000": 55040000,
	}
	for in, want := range cases {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "abc", "1.2.3", "1e5", "--1"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded, want error", bad)
		}
	}
}

func TestMonthlyOfP4dPairMatchesDesignExample(t *testing.T) {
	// DESIGN.md: two p4d.24xlarge at 21.957642/h for 730 h is 32058.16 a month.
	hourly, _ := Parse("21.957642")
	monthly := hourly.MulInt(2).Mul(730)
	if got := monthly.Decimal(2); got != "32058.16" {
		t.Fatalf("monthly = %s, want 32058.16", got)
	}
	if got := hourly.MulInt(2).Decimal(4); got != "43.9153" {
		t.Fatalf("hourly = %s, want 43.9153", got)
	}
}

func TestSumDoesNotDrift(t *testing.T) {
	// 0.1 dollars added a million times is exactly 100000 dollars in Micros, where float64 drifts.
	var sum Micros
	f := 0.0
	tenth, _ := Parse("0.1")
	for i := 0; i < 1_000_000; i++ {
		sum += tenth
		f += 0.1
	}
	if sum != 100000*MicrosPerDollar {
		t.Fatalf("sum = %d", sum)
	}
	if f == 100000 {
		t.Log("float64 happened not to drift on this platform")
	}
}

func TestString(t *testing.T) {
	cases := map[Micros]string{
		0:               "$0.00",
		4999:            "$0.00",
		5000:            "$0.01",
		32058157320:     "$32,058.16",
		-1234567890000:  "-$1,234,567.89",
		999999999999999: "$1,000,000,000.00",
	}
	for in, want := range cases {
		if got := in.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", in, got, want)
		}
	}
	if got := Micros(1200000000).Signed(); got != "+$1,200.00" {
		t.Errorf("Signed = %q", got)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	type doc struct {
		A  Amount  `json:"a"`
		R  Rate    `json:"r"`
		PA *Amount `json:"pa"`
	}
	in := doc{A: Amount(32058157320), R: Rate(43915284)}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"a":32058.16,"r":43.9153,"pa":null}` {
		t.Fatalf("marshal = %s", b)
	}
	var out doc
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.A != Amount(32058160000) || out.R != Rate(43915300) || out.PA != nil {
		t.Fatalf("unmarshal = %+v", out)
	}
}

func TestDecimalPadsRoundsAndSigns(t *testing.T) {
	cases := []struct {
		m      Micros
		digits int
		want   string
	}{
		{0, 2, "0.00"},
		{50_000, 2, "0.05"},
		{4_995_000, 2, "5.00"}, // half away from zero
		{-4_995_000, 2, "-5.00"},
		{587_500_000, 2, "587.50"},
		{43_915_284, 4, "43.9153"},
		{700, 4, "0.0007"},
		{1_234_567_890_000, 0, "1234568"},
		{123_456, 6, "0.123456"},
		{5, 9, "0.000005"}, // digits above 6 are 6
	}
	for _, c := range cases {
		if got := c.m.Decimal(c.digits); got != c.want {
			t.Errorf("Micros(%d).Decimal(%d) = %q, want %q", c.m, c.digits, got, c.want)
		}
		if got := string(c.m.AppendDecimal([]byte("x="), c.digits)); got != "x="+c.want {
			t.Errorf("AppendDecimal = %q, want %q", got, "x="+c.want)
		}
	}
}

// FuzzParse: whatever Parse accepts, Decimal(6) writes back as the same amount, and the sign
// never flips.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"21.957642", "-0.1", "0.0000005", "12", "-", ".5", "9223372036853.775807", "1e5", " 3.20 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := Parse(s)
		if err != nil {
			return
		}
		back, err := Parse(m.Decimal(6))
		if err != nil || back != m {
			t.Fatalf("Parse(%q) = %d, written %q, read back %d (%v)", s, m, m.Decimal(6), back, err)
		}
		if neg := strings.HasPrefix(strings.TrimSpace(s), "-"); (m < 0 && !neg) || (m > 0 && neg) {
			t.Fatalf("Parse(%q) = %d: sign flipped", s, m)
		}
	})
}

func TestGroupDigits(t *testing.T) {
	for in, want := range map[string]string{"": "", "7": "7", "999": "999", "1000": "1,000", "123456": "123,456", "12345678901234567890": "12,345,678,901,234,567,890"} {
		if got := GroupDigits(in); got != want {
			t.Errorf("GroupDigits(%q) = %q, want %q", in, got, want)
		}
	}
}
