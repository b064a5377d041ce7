package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
)

// Format is an output format.
type Format string

// Output formats.
const (
	Table    Format = "table"
	JSON     Format = "json"
	Markdown Format = "markdown"
	SARIF    Format = "sarif"
	GitHub   Format = "github"
)

// Formats lists the formats, for flag help and validation.
var Formats = []Format{Table, JSON, Markdown, SARIF, GitHub}

// ParseFormat validates a --format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown format %q (want one of %s)", s, strings.Join(names, ", "))
}

// WriteJSON writes any document as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// gpuText describes a resource's GPUs: "8× NVIDIA A100 40GB", with the MIG slice they run
// as when they are split ("8× NVIDIA H100 80GB (MIG 3g.40gb)").
func gpuText(e *estimator.Estimate) string {
	if e.GPU == nil || e.GPU.Count == 0 && e.GPU.Model == "" {
		return "-"
	}
	model := e.GPU.Model
	if model == "" {
		model = "GPU"
	}
	if e.GPU.MIGProfile != "" {
		model += " (MIG " + e.GPU.MIGProfile + ")"
	}
	return fmt.Sprintf("%s× %s", trimFloat(e.GPU.Count), model)
}

func trimFloat(f float64) string {
	s := fmt.Sprintf("%.3f", f)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// monthlyText is the monthly cost, "unpriced" when there is none; estimates get a star.
func monthlyText(e *estimator.Estimate) string {
	m, ok := e.Monthly()
	if !ok {
		return "unpriced"
	}
	s := boundMark(e.PriceBound) + m.String()
	if e.PriceEstimated {
		s += "*"
	}
	return s
}

// boundMark marks a price that is a bound (estimator.Estimate.PriceBound): "≥ " at least,
// "≤ " at most, "" for none.
func boundMark(bound string) string {
	switch bound {
	case estimator.BoundLower:
		return "≥ "
	case estimator.BoundUpper:
		return "≤ "
	}
	return ""
}

// totalText is a total with its bound mark: "≥ $166,182.75" when its prices bound it from below.
func totalText(t estimator.Totals) string { return boundedText(t.PriceBound, t.MonthlyCost) }

// diffTotalsText is a diff's totals before and after, each with its side's bound mark.
func diffTotalsText(d *result.Diff) (before, after string) {
	return boundedText(d.Base.PriceBound, d.Totals.MonthlyCostBefore), boundedText(d.Head.PriceBound, d.Totals.MonthlyCostAfter)
}

// boundedText is an amount with the mark of the bound it is ("≥ $1.00"), if any.
func boundedText(bound string, a money.Amount) string {
	return boundMark(bound) + amount(a).String()
}

// boundCounts counts the priced resources whose price is a lower and an upper bound.
func boundCounts(es []*estimator.Estimate) (lower, upper int) {
	for _, e := range es {
		if e == nil || e.MonthlyCost == nil {
			continue
		}
		switch e.PriceBound {
		case estimator.BoundLower:
			lower++
		case estimator.BoundUpper:
			upper++
		}
	}
	return lower, upper
}

// boundsNote explains the bound marks the resources' prices carry, or is "" when none does.
func boundsNote(es []*estimator.Estimate) string {
	lower, upper := boundCounts(es)
	var parts []string
	if lower > 0 {
		parts = append(parts, "≥ marks a lower bound (the service bills above the catalog's price of the machine)")
	}
	if upper > 0 {
		parts = append(parts, "≤ an upper bound (the capacity bills below the catalog's on-demand price)")
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + "; the resource's notes say which service."
}

// quantityText is the quantity, as a range up to the autoscaler's maximum when one prices
// higher ("0–4").
func quantityText(e *estimator.Estimate) string {
	if e.ScaleMax != nil {
		return fmt.Sprintf("%d–%d", e.Quantity, e.ScaleMax.Quantity)
	}
	return strconv.Itoa(e.Quantity)
}

// monthlyRangeText is monthlyText with, for an autoscaled resource, what it costs at its
// maximum: "$0.00 (up to $1,297.74)".
func monthlyRangeText(e *estimator.Estimate) string {
	s := monthlyText(e)
	if m := e.ScaleMax; m != nil {
		star := ""
		if m.PriceEstimated {
			star = "*"
		}
		s += fmt.Sprintf(" (up to %s%s)", amount(m.MonthlyCost), star)
	}
	return s
}

// scaleMaxSentence says what the priced resources cost with every autoscaled one at its
// maximum, or "" when none declares one.
func scaleMaxSentence(es []estimator.Estimate, t estimator.Totals) string {
	if t.MaxMonthlyCost == nil {
		return ""
	}
	n, star := 0, ""
	if t.Estimated > 0 {
		star = "*"
	}
	for i := range es {
		if m := es[i].ScaleMax; m != nil {
			n++
			if m.PriceEstimated {
				star = "*"
			}
		}
	}
	if n == 0 {
		return ""
	}
	at := "its declared maximum"
	if n > 1 {
		at = "their declared maximums"
	}
	upTo := "Up to"
	if t.PriceBound == estimator.BoundLower {
		upTo = "At least" // the prices at full scale-out are lower bounds too
	}
	s := fmt.Sprintf("%s %s%s/month with %d autoscaled resource%s at %s", upTo, amount(*t.MaxMonthlyCost), star, n, plural(n), at)
	var limits []string // the limits the total counts resources within
	for _, l := range estimator.SharedLimits(es) {
		if text := l.Owner + "'s " + l.What; !slices.Contains(limits, text) {
			limits = append(limits, text)
		}
	}
	if len(limits) > 0 {
		sort.Strings(limits)
		s += ", counted within " + strings.Join(limits[:len(limits)-1], ", ")
		if len(limits) > 1 {
			s += " and "
		}
		s += limits[len(limits)-1]
	}
	return s + "."
}

func purchaseText(e *estimator.Estimate) string {
	if e.CapacitySplit != nil {
		return fmt.Sprintf("%d on-demand + %d spot", e.CapacitySplit.OnDemand, e.CapacitySplit.Spot)
	}
	return strings.ReplaceAll(string(e.PurchaseOption), "_", "-")
}

func location(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

// sortedFindings orders findings by severity (deny first), then file and line.
func sortedFindings(fs []result.Finding) []result.Finding {
	out := append([]result.Finding(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Suppressed != b.Suppressed {
			return !a.Suppressed
		}
		if a.Severity.Rank() != b.Severity.Rank() {
			return a.Severity.Rank() > b.Severity.Rank()
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return parser.CompareAddresses(a.Address, b.Address) < 0
	})
	return out
}

func amount(a money.Amount) money.Micros { return money.Micros(a) }
