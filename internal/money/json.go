package money

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Amount is a sum of money shown in JSON as dollars with two decimals (cents).
type Amount Micros

// Rate is an hourly price shown in JSON as dollars with four decimals.
type Rate Micros

// MarshalJSON writes the amount rounded to cents.
func (a Amount) MarshalJSON() ([]byte, error) { return []byte(Micros(a).Decimal(2)), nil }

// UnmarshalJSON reads a JSON number exactly.
func (a *Amount) UnmarshalJSON(b []byte) error {
	m, err := parseJSONNumber(b)
	*a = Amount(m)
	return err
}

// MarshalJSON writes the rate rounded to four decimals.
func (r Rate) MarshalJSON() ([]byte, error) { return []byte(Micros(r).Decimal(4)), nil }

// UnmarshalJSON reads a JSON number exactly.
func (r *Rate) UnmarshalJSON(b []byte) error {
	m, err := parseJSONNumber(b)
	*r = Rate(m)
	return err
}

func parseJSONNumber(b []byte) (Micros, error) {
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return 0, fmt.Errorf("amount: %w", err)
	}
	s := n.String()
	if strings.ContainsAny(s, "eE") {
		var f float64
		if err := json.Unmarshal(b, &f); err != nil {
			return 0, err
		}
		return FromDollars(f), nil
	}
	return Parse(s)
}
