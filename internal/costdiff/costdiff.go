package costdiff

import (
	"math"
	"regexp"
	"sort"
	"strings"

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
	// Resources match by id (root and address); a base resource whose address the head moved
	// (moved blocks, a plan's previous addresses, count added or removed) matches the head's at
	// the new address, if nothing else took it.
	paired := map[string]*estimator.Estimate{} // head id → its base resource
	heads := map[string]bool{}
	for i := range head.Resources {
		heads[head.Resources[i].ID] = true
	}
	matched := map[string]bool{} // base ids with a head resource
	for i := range base.Resources {
		if b := &base.Resources[i]; heads[b.ID] {
			paired[b.ID], matched[b.ID] = b, true
		}
	}
	moved := map[string]string{} // head id → base address
	moves := newMoveSet(head.Moves)
	for i := range base.Resources {
		b := &base.Resources[i]
		if matched[b.ID] {
			continue
		}
		for _, addr := range moves.destinations(b) {
			if id := estimator.ResourceID(b.Root, addr); heads[id] && paired[id] == nil {
				paired[id], matched[b.ID], moved[id] = b, true, b.Address
				break
			}
		}
	}
	for i := range head.Resources {
		h := &head.Resources[i]
		c := change(paired[h.ID], h)
		c.MovedFrom = moved[h.ID]
		d.Changes = append(d.Changes, c)
	}
	for i := range base.Resources {
		if b := &base.Resources[i]; !matched[b.ID] {
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
	return result.DiffSide{MonthlyCost: c.Totals.MonthlyCost, Resources: c.Totals.Resources, Unpriced: c.Totals.Unpriced, PriceBound: c.Totals.PriceBound, HoursPerMonth: c.HoursPerMonth}
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
		return parser.CompareAddresses(a.Address, b.Address) < 0
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

// moveSet is the head's moves by root.
type moveSet map[string][]parser.Move

func newMoveSet(moves []parser.Move) moveSet {
	ms := moveSet{}
	for _, m := range moves {
		ms[m.Root] = append(ms[m.Root], m)
	}
	return ms
}

// destinations are the addresses a base resource may have moved to in the head, most likely
// first: where the head's moves take it (each move applied once, in chains: a to b, then b to
// c), then, for a Terraform resource, Terraform's implicit move when count is added (x to x[0])
// or removed (x[0] to x)
// (https://developer.hashicorp.com/terraform/language/modules/develop/refactoring).
func (ms moveSet) destinations(b *estimator.Estimate) []string {
	addr := b.Address
	moves := ms[b.Root]
	used := make([]bool, len(moves))
	for progress := true; progress; {
		progress = false
		for i, m := range moves {
			if rest, ok := under(addr, m.From); ok && !used[i] {
				addr, used[i], progress = m.To+rest, true, true
			}
		}
	}
	var out []string
	if addr != b.Address {
		out = append(out, addr)
	}
	if b.Kind == parser.KindTerraform {
		if alt, ok := implicitMove(addr); ok {
			out = append(out, alt)
		}
	}
	return out
}

// under reports whether addr is the object at prefix or inside it (its instances, the
// resources of a module, a resource's node pools), and what follows the prefix.
func under(addr, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(addr, prefix)
	if !ok || rest != "" && rest[0] != '.' && rest[0] != '[' {
		return "", false
	}
	return rest, true
}

// resourceAddress splits a Terraform address into its module path, its resource (type.name),
// the resource's instance key and what gpuguard adds after it (a node pool).
var resourceAddress = regexp.MustCompile(`^((?:module\.[A-Za-z0-9_-]+(?:\[(?:\d+|"(?:[^"\\]|\\.)*")\])?\.)*)([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)(\[(?:\d+|"(?:[^"\\]|\\.)*")\])?(.*)$`)

// implicitMove is where Terraform moves a resource's object when count is added to it (no key
// to [0]) or removed ([0] to no key).
func implicitMove(addr string) (string, bool) {
	m := resourceAddress.FindStringSubmatch(addr)
	switch {
	case m == nil || strings.HasPrefix(m[2], "data."):
		return "", false
	case m[3] == "":
		return m[1] + m[2] + "[0]" + m[4], true
	case m[3] == "[0]":
		return m[1] + m[2] + m[4], true
	}
	return "", false
}
