package policies

import (
	"math/big"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/money"
)

// bigDollars formats through big.Rat only (an exponent keeps money's path out): the path
// formatDollars takes for numbers money cannot hold exactly. Both must agree wherever both apply.
func bigDollars(t *testing.T, n string) string {
	t.Helper()
	s, err := formatDollars(n + "e0")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFormatDollars(t *testing.T) {
	for in, want := range map[string]string{
		"587.50":                  "$587.50",
		"0":                       "$0.00",
		"-0.004":                  "$0.00",
		"-0.005":                  "-$0.01",
		"1234567.891":             "$1,234,567.89",
		"1e6":                     "$1,000,000.00",
		"-2.5e-2":                 "-$0.03",
		"0.0049995":               "$0.00", // rounded once, not to micros and then to cents
		"99999999999999999999.99": "$99,999,999,999,999,999,999.99",
	} {
		got, err := formatDollars(in)
		if err != nil || got != want {
			t.Errorf("formatDollars(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := formatDollars("twelve"); err == nil || !strings.Contains(err.Error(), DollarsBuiltin) {
		t.Errorf("a non-number must fail naming the builtin, got %v", err)
	}
}

// FuzzFormatDollars checks that money's exact path and the big.Rat path round and group the same.
func FuzzFormatDollars(f *testing.F) {
	for _, s := range []string{"587.50", "0.005", "-4800.5", "1234567.8", "0.1234567", "999999.995", "0.0049995"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, n string) {
		if _, err := money.Parse(n); err != nil || strings.ContainsAny(n, " \t\n\r") || n == "-" || strings.HasSuffix(n, ".") || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "-.") {
			return // only numbers both paths read
		}
		if _, ok := new(big.Rat).SetString(n); !ok {
			return
		}
		got, err := formatDollars(n)
		if err != nil {
			t.Fatal(err)
		}
		if want := bigDollars(t, n); got != want {
			t.Fatalf("formatDollars(%q) = %q, big.Rat path %q", n, got, want)
		}
	})
}
