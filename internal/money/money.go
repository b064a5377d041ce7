package money

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Micros is an amount of US dollars in millionths of a dollar. Catalog prices have at most six
// decimals, so every catalog price is exact in Micros.
type Micros int64

// MicrosPerDollar is the number of Micros in one dollar.
const MicrosPerDollar = 1_000_000

// FromDollars converts a dollar amount, rounding to the nearest micro-dollar. It is meant for
// values read from data files, not for accumulating sums.
func FromDollars(d float64) Micros {
	return Micros(math.Round(d * MicrosPerDollar))
}

// Parse reads a decimal dollar amount such as "21.957642" exactly, without going through float64
// for up to six decimals. More decimals are rounded half away from zero.
func Parse(s string) (Micros, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty amount")
	}
	neg := false
	if s[0] == '-' {
		neg = true
		s = s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	if intPart == "" {
		intPart = "0"
	}
	for _, c := range intPart {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("invalid amount %q", s)
		}
	}
	whole, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil || whole > math.MaxInt64/MicrosPerDollar-1 {
		return 0, fmt.Errorf("invalid amount %q", s)
	}
	var fracMicros int64
	roundUp := false
	for i, c := range frac {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("invalid amount %q", s)
		}
		switch {
		case i < 6:
			fracMicros = fracMicros*10 + int64(c-'0')
		case i == 6:
			roundUp = c >= '5'
		}
	}
	for i := len(frac); i < 6; i++ {
		fracMicros *= 10
	}
	m := whole*MicrosPerDollar + fracMicros
	if roundUp {
		m++
	}
	if neg {
		m = -m
	}
	return Micros(m), nil
}

// Dollars returns the amount as float64 dollars, for JSON and policy input only.
func (m Micros) Dollars() float64 { return float64(m) / MicrosPerDollar }

// Cents returns the amount rounded half away from zero to whole cents.
func (m Micros) Cents() int64 {
	if m < 0 {
		return -int64((-m + 5000) / 10000)
	}
	return int64((m + 5000) / 10000)
}

// RoundCents is the amount rounded to whole cents, as String shows it. Differences of shown
// amounts are taken between rounded ones, so that they add up as a reader checks them.
func (m Micros) RoundCents() Micros { return Micros(m.Cents() * 10000) }

// Mul multiplies by a non-negative rate and rounds to the nearest micro-dollar. Use it for
// hours, quantities and shares; the rounding happens once per resource, never per sum.
func (m Micros) Mul(f float64) Micros {
	return Micros(math.Round(float64(m) * f))
}

// MulInt multiplies by an integer exactly.
func (m Micros) MulInt(n int64) Micros { return m * Micros(n) }

// String formats the amount as dollars with cents and thousands separators: "$32,058.16".
func (m Micros) String() string {
	c := m.Cents()
	sign := ""
	if c < 0 {
		sign = "-"
		c = -c
	}
	return sign + "$" + groupThousands(c/100) + fmt.Sprintf(".%02d", c%100)
}

// Signed formats the amount with an explicit sign: "+$1,200.00", "-$3.10", "$0.00".
func (m Micros) Signed() string {
	if m.Cents() > 0 {
		return "+" + m.String()
	}
	return m.String()
}

// Decimal formats the amount as a plain decimal with the given number of fraction digits
// (0..6), rounding half away from zero: Decimal(2) of 43915284 is "43.92".
func (m Micros) Decimal(digits int) string {
	return string(m.AppendDecimal(nil, digits))
}

// AppendDecimal appends Decimal(digits) to b.
func (m Micros) AppendDecimal(b []byte, digits int) []byte {
	digits = min(max(digits, 0), 6)
	unit := int64(1)
	for i := digits; i < 6; i++ {
		unit *= 10
	}
	v := int64(m)
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	v = (v + unit/2) / unit
	if digits == 0 {
		return strconv.AppendInt(b, v, 10)
	}
	scale := int64(1)
	for i := 0; i < digits; i++ {
		scale *= 10
	}
	b = strconv.AppendInt(b, v/scale, 10)
	b = append(b, '.')
	frac := v % scale
	for s := scale / 10; s > 1 && frac < s; s /= 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, frac, 10)
}

func groupThousands(n int64) string {
	return GroupDigits(strconv.FormatInt(n, 10))
}

// GroupDigits puts a comma between each group of three digits of a whole number written in
// decimal: "1234567" → "1,234,567". For numbers beyond int64 (big.Int.String()).
func GroupDigits(s string) string {
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// Group formats a whole number with thousands separators ("1,500"), for counts shown beside
// amounts.
func Group(n int64) string {
	if n < 0 {
		return "-" + groupThousands(-n)
	}
	return groupThousands(n)
}
