package costdiff

import (
	"math"
	"sort"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
)

// Change kinds.
const (
	Added     = "added"
	Removed   = "removed"
	Changed   = "changed"
	Unchanged = "unchanged"
)

// Compute builds the diff document. Findings and errors are the head's.
func Compute(base, head *result.Check) *result.Diff {
	d := &result.Diff{
		Version: result.Version, Currency: result.Currency, Catalog: head.Catalog,
		Base:     side(base),
		Head:     side(head),
		Changes:  []result.Change{},
		Findings: head.Findings,
		Errors:   Errors(base, head),
		Warnings: Warnings(base, head),
	}
	if d.Findings == nil {
		d.Findings = []result.Finding{}
	}
	before := map[string]*estimator.Estimate{}
	for i := range base.Resources {
		before[base.Resources[i].ID] = &base.Resources[i]
	}
	seen := map[string]bool{}
	for i := range head.Resources {
		h := &head.Resources[i]
		seen[h.ID] = true
		d.Changes = append(d.Changes, change(before[h.ID], h))
	}
	for i := range base.Resources {
		b := &base.Resources[i]
		if !seen[b.ID] {
			d.Changes = append(d.Changes, change(b, nil))
		}
	}
	SortChanges(d.Changes)
	d.Totals = totals(base, head)
	return d
}

// Errors are both sides' input errors: the head's, then the base's marked as such.
func Errors(base, head *result.Check) []parser.Error { return bothSides(base.Errors, head.Errors) }

// Warnings are both sides' input warnings, in the same order.
func Warnings(base, head *result.Check) []parser.Error {
	return bothSides(base.Warnings, head.Warnings)
}

func bothSides(base, head []parser.Error) []parser.Error {
	out := append([]parser.Error{}, head...)
	for _, e := range base {
		e.Message = "in the base: " + e.Message
		out = append(out, e)
	}
	return out
}

func side(c *result.Check) result.DiffSide {
	return result.DiffSide{MonthlyCost: c.Totals.MonthlyCost, Resources: c.Totals.Resources, Unpriced: c.Totals.Unpriced}
}

func totals(base, head *result.Check) result.DiffTotals {
	b, h := money.Micros(base.Totals.MonthlyCost), money.Micros(head.Totals.MonthlyCost)
	t := result.DiffTotals{MonthlyCostBefore: money.Amount(b), MonthlyCostAfter: money.Amount(h), MonthlyDelta: money.Amount(h.RoundCents() - b.RoundCents())}
	if b > 0 {
		p := math.Round(float64(h-b)/float64(b)*10000) / 100
		t.PercentChange = &p
	}
	if base.Totals.MaxMonthlyCost != nil || head.Totals.MaxMonthlyCost != nil {
		t.MaxMonthlyCostBefore, t.MaxMonthlyCostAfter = atMax(base.Totals), atMax(head.Totals)
	}
	return t
}

// atMax is a side's total at its autoscalers' maximums: its total when nothing scales.
func atMax(t estimator.Totals) *money.Amount {
	a := t.MonthlyCost
	if t.MaxMonthlyCost != nil {
		a = *t.MaxMonthlyCost
	}
	return &a
}

// maxAmount is a resource's cost at its autoscaler's maximum, nil when it has none.
func maxAmount(e *estimator.Estimate) *money.Amount {
	if e == nil || e.ScaleMax == nil {
		return nil
	}
	a := e.ScaleMax.MonthlyCost
	return &a
}

func amount(e *estimator.Estimate) *money.Amount {
	if e == nil || e.MonthlyCost == nil {
		return nil
	}
	a := *e.MonthlyCost
	return &a
}

func change(b, h *estimator.Estimate) result.Change {
	c := result.Change{MonthlyCostBefore: amount(b), MonthlyCostAfter: amount(h), Before: b, After: h,
		MaxMonthlyCostBefore: maxAmount(b), MaxMonthlyCostAfter: maxAmount(h)}
	switch {
	case b == nil:
		c.Address, c.Change, c.InstanceTypeAfter = h.Address, Added, h.InstanceType
	case h == nil:
		c.Address, c.Change, c.InstanceTypeBefore = b.Address, Removed, b.InstanceType
	default:
		c.Address, c.InstanceTypeBefore, c.InstanceTypeAfter = h.Address, b.InstanceType, h.InstanceType
		c.Change = Unchanged
		if b.InstanceType != h.InstanceType || b.Quantity != h.Quantity || b.PurchaseOption != h.PurchaseOption ||
			!sameAmount(b.MonthlyCost, h.MonthlyCost) || b.Region != h.Region || !sameAmount(c.MaxMonthlyCostBefore, c.MaxMonthlyCostAfter) {
			c.Change = Changed
		}
	}
	if h != nil {
		c.Root = h.Root
	} else {
		c.Root = b.Root
	}
	var before, after money.Micros
	if c.MonthlyCostBefore != nil {
		before = money.Micros(*c.MonthlyCostBefore)
	}
	if c.MonthlyCostAfter != nil {
		after = money.Micros(*c.MonthlyCostAfter)
	}
	if c.MonthlyCostBefore != nil || c.MonthlyCostAfter != nil {
		delta := money.Amount(after.RoundCents() - before.RoundCents())
		c.MonthlyDelta = &delta
	}
	return c
}

func sameAmount(a, b *money.Amount) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// SortChanges orders changes by the size of their monthly delta, largest first; unchanged ones
// last; then by address.
func SortChanges(cs []result.Change) {
	abs := func(c result.Change) money.Micros {
		if c.MonthlyDelta == nil {
			return 0
		}
		d := money.Micros(*c.MonthlyDelta)
		if d < 0 {
			return -d
		}
		return d
	}
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if (a.Change == Unchanged) != (b.Change == Unchanged) {
			return b.Change == Unchanged
		}
		if abs(a) != abs(b) {
			return abs(a) > abs(b)
		}
		if a.Root != b.Root {
			return a.Root < b.Root
		}
		return a.Address < b.Address
	})
}

// PolicyDiff is what policies see as input.diff.
func PolicyDiff(d *result.Diff) map[string]any {
	var changes []map[string]any
	for _, c := range d.Changes {
		if c.Change == Unchanged {
			continue
		}
		m := map[string]any{"address": c.Address, "root": c.Root, "change": c.Change, "instance_type_before": c.InstanceTypeBefore, "instance_type_after": c.InstanceTypeAfter}
		if c.MonthlyDelta != nil {
			m["monthly_delta"] = *c.MonthlyDelta
		}
		if c.MaxMonthlyCostBefore != nil {
			m["max_monthly_cost_before"] = *c.MaxMonthlyCostBefore
		}
		if c.MaxMonthlyCostAfter != nil {
			m["max_monthly_cost_after"] = *c.MaxMonthlyCostAfter
		}
		changes = append(changes, m)
	}
	totals := map[string]any{"monthly_cost_before": d.Totals.MonthlyCostBefore, "monthly_cost_after": d.Totals.MonthlyCostAfter, "monthly_delta": d.Totals.MonthlyDelta}
	if d.Totals.PercentChange != nil {
		totals["percent_change"] = *d.Totals.PercentChange
	}
	if d.Totals.MaxMonthlyCostBefore != nil {
		totals["max_monthly_cost_before"], totals["max_monthly_cost_after"] = *d.Totals.MaxMonthlyCostBefore, *d.Totals.MaxMonthlyCostAfter
	}
	if changes == nil {
		changes = []map[string]any{}
	}
	return map[string]any{"totals": totals, "changes": changes}
}
