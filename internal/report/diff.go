package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/result"
)

// deltaText is a signed amount, "—" when both sides are unpriced.
func deltaText(a *money.Amount) string {
	if a == nil {
		return "—"
	}
	return money.Micros(*a).Signed()
}

func amountText(a *money.Amount) string {
	if a == nil {
		return "—"
	}
	return money.Micros(*a).String()
}

// percentText is the change in percent; without a base total it says whether spend is new.
func percentText(d *result.Diff) string {
	p := d.Totals.PercentChange
	if p == nil {
		if money.Micros(d.Totals.MonthlyCostAfter) == 0 {
			return "no change"
		}
		return "new spend"
	}
	format := "%.1f%%"
	if *p != 0 && *p > -0.05 && *p < 0.05 {
		format = "%.2f%%" // a small change of a large total: -0.01%, not -0.0%
	}
	if *p > 0 {
		format = "+" + format
	}
	return fmt.Sprintf(format, *p)
}

// changeAmountText is one side's monthly cost in a change, marked when it is a bound, with its
// cost at the autoscaler's maximum when it has one: "$0.00 (up to $1,297.74)", "≥ $383.98".
func changeAmountText(e *estimator.Estimate, a, atMax *money.Amount) string {
	s := amountText(a)
	if e != nil && a != nil {
		s = boundMark(e.PriceBound) + s
	}
	if atMax != nil {
		s += fmt.Sprintf(" (up to %s)", money.Micros(*atMax))
	}
	return s
}

// scaleMaxDiffSentence compares the totals at the autoscalers' maximums, or is "" when neither
// side declares one.
func scaleMaxDiffSentence(d *result.Diff) string {
	b, h := d.Totals.MaxMonthlyCostBefore, d.Totals.MaxMonthlyCostAfter
	if b == nil || h == nil {
		return ""
	}
	delta := money.Micros(*h).RoundCents() - money.Micros(*b).RoundCents()
	return fmt.Sprintf("At the autoscalers' declared maximums: %s → %s a month (%s).", money.Micros(*b), money.Micros(*h), delta.Signed())
}

// sideText describes one side of a change: "2× p5.48xlarge (8× NVIDIA H100 80GB), on-demand".
func sideText(e *estimator.Estimate) string {
	if e == nil {
		return "—"
	}
	it := e.InstanceType
	if it == "" {
		it = "unknown type"
	}
	s := fmt.Sprintf("%s× %s", quantityText(e), it)
	if g := gpuText(e); g != "-" {
		s += " (" + g + ")"
	}
	return s + ", " + purchaseText(e)
}

// multiRoot reports whether a diff's resources come from more than one root module or manifest
// directory: then an address alone is ambiguous and reports prefix it with its root.
func multiRoot(d *result.Diff) bool {
	first := ""
	for i, c := range d.Changes {
		if i == 0 {
			first = c.Root
		} else if c.Root != first {
			return true
		}
	}
	return false
}

// label names a resource in a report: its address, with its root when several roots are shown.
func label(multi bool, root, address string) string {
	if multi && root != "" && root != "." {
		return root + ": " + address
	}
	return address
}

// resourceNames names the resources of a check report: by address, with the root in front
// where another root declares the same address (each Terragrunt unit that deploys one module,
// stacks cut from one template), so that no two rows read alike. The set holds those addresses.
type resourceNames map[string]bool

func namesOf(es []estimator.Estimate) resourceNames {
	roots := map[string]string{}
	ambiguous := resourceNames{}
	for i := range es {
		if root, seen := roots[es[i].Address]; seen && root != es[i].Root {
			ambiguous[es[i].Address] = true
		}
		roots[es[i].Address] = es[i].Root
	}
	return ambiguous
}

// diffNames are a diff's ambiguous addresses, for its findings.
func diffNames(d *result.Diff) resourceNames {
	roots := map[string]string{}
	ambiguous := resourceNames{}
	for _, c := range d.Changes {
		if root, seen := roots[c.Address]; seen && root != c.Root {
			ambiguous[c.Address] = true
		}
		roots[c.Address] = c.Root
	}
	return ambiguous
}

func (n resourceNames) resource(e *estimator.Estimate) string {
	return label(n[e.Address], e.Root, e.Address)
}

func (n resourceNames) finding(f result.Finding) string {
	return findingLabel(n[f.Address], f)
}

// findingLabel names a finding's resource the same way, from its resource id (root|address).
func findingLabel(multi bool, f result.Finding) string {
	if root, _, ok := strings.Cut(f.Resource, "|"); ok {
		return label(multi, root, f.Address)
	}
	return f.Address
}

// changeCounts counts the changes by kind.
func changeCounts(d *result.Diff) (added, removed, changed, unchanged int) {
	for _, c := range d.Changes {
		switch c.Change {
		case "added":
			added++
		case "removed":
			removed++
		case "changed":
			changed++
		default:
			unchanged++
		}
	}
	return
}

// movedCount counts the resources the head moved to a new address: those of one kind of
// change, or all of them when change is "".
func movedCount(d *result.Diff, change string) int {
	n := 0
	for _, c := range d.Changes {
		if c.MovedFrom != "" && (change == "" || c.Change == change) {
			n++
		}
	}
	return n
}

// unchangedText is "3 unchanged", saying how many of those moved.
func unchangedText(d *result.Diff, u int) string {
	if moved := movedCount(d, "unchanged"); moved > 0 {
		return fmt.Sprintf("%d unchanged, %d of them moved to a new address", u, moved)
	}
	return fmt.Sprintf("%d unchanged", u)
}

// WriteDiffTable renders a diff for a terminal.
func WriteDiffTable(w io.Writer, d *result.Diff) error {
	ew := &errWriter{w: w}
	spendBefore, spendAfter := diffTotalsText(d)
	ew.printf("GPU spend: %s → %s a month (%s, %s)\n", spendBefore, spendAfter, money.Micros(d.Totals.MonthlyDelta).Signed(), percentText(d))
	if s := scaleMaxDiffSentence(d); s != "" {
		ew.printf("%s\n", s)
	}
	if n := d.Head.Unpriced; n == 1 {
		ew.printf("1 GPU resource of the head is not priced, and not in the totals (see Unpriced below).\n")
	} else if n > 1 {
		ew.printf("%d GPU resources of the head are not priced, and not in the totals (see Unpriced below).\n", n)
	}
	ew.printf("\n")
	a, r, c, u := changeCounts(d)
	if a+r+c == 0 {
		ew.printf("No GPU resource changed (%s).\n", unchangedText(d, u))
	} else {
		multi := multiRoot(d)
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "CHANGE\tADDRESS\tBEFORE\tAFTER\tMONTHLY\tDELTA")
		for _, ch := range d.Changes {
			if ch.Change == "unchanged" {
				continue
			}
			addr := label(multi, ch.Root, ch.Address)
			if ch.MovedFrom != "" {
				addr += " (moved from " + ch.MovedFrom + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s → %s\t%s\n", ch.Change, addr, sideText(ch.Before), sideText(ch.After),
				changeAmountText(ch.Before, ch.MonthlyCostBefore, ch.MaxMonthlyCostBefore), changeAmountText(ch.After, ch.MonthlyCostAfter, ch.MaxMonthlyCostAfter), deltaText(ch.MonthlyDelta))
		}
		tw.Flush()
		ew.printf("\n%d added, %d removed, %d changed, %s.\n", a, r, c, unchangedText(d, u))
	}
	names := diffNames(d)
	after := headResources(d)
	if s := boundsNote(after); s != "" {
		ew.printf("%s\n", s)
	}
	writeUnpricedText(ew, after, names)
	writeSavingsText(ew, after, names)
	writeFindingsText(ew, d.Findings, names)
	writeProblemsText(ew, d.Errors, d.Warnings)
	ew.printf("\nPrices: USD, catalog updated %s%s (sources: gpuguard pricing list).\n", d.Catalog.Updated, catalogAge(d.Catalog, ""))
	return ew.err
}

// writeDiffChangesMarkdown renders the changed resources, largest change first, at most limit
// rows (limit < 0: all).
func writeDiffChangesMarkdown(b *strings.Builder, d *result.Diff, limit int, names refs) {
	var rows []result.Change
	for _, c := range d.Changes {
		if c.Change != "unchanged" {
			rows = append(rows, c)
		}
	}
	if len(rows) == 0 {
		if _, _, _, u := changeCounts(d); u > 0 {
			fmt.Fprintf(b, "No GPU resource changed (%s).\n\n", unchangedText(d, u))
		} else {
			b.WriteString("Neither side declares GPU resources.\n\n")
		}
		return
	}
	b.WriteString("| Resource | Before → after | Monthly | Change |\n|---|---|--:|--:|\n")
	shown := rows
	if limit >= 0 && len(rows) > limit {
		shown = rows[:limit]
	}
	for _, c := range shown {
		what := mdCell(sideText(c.Before)) + " → " + mdCell(sideText(c.After))
		switch c.Change {
		case "added":
			what = "**added**: " + mdCell(sideText(c.After))
		case "removed":
			what = "**removed**: " + mdCell(sideText(c.Before))
		}
		if c.MovedFrom != "" {
			what += " — moved from " + cell(code(c.MovedFrom))
		}
		if c.After != nil && c.After.UnpricedReason != nil {
			what += " — ⚠️ unpriced: " + mdCell(*c.After.UnpricedReason)
		}
		if e := c.After; e != nil && e.NodeGroup != "" && e.Pod != nil {
			// Its pods fill nodes the total already pays for, up to the group's own cost.
			ids := e.NodeGroups
			if len(ids) == 0 {
				ids = []string{e.NodeGroup}
			}
			names := make([]string, len(ids))
			for i, id := range ids {
				names[i] = id
				if _, addr, ok := strings.Cut(id, "|"); ok {
					names[i] = addr
				}
			}
			its := "its"
			if len(names) > 1 {
				its = "their"
			}
			what += " — runs on " + mdCell(strings.Join(names, " or ")) + ", counted within " + its + " cost"
		}
		fmt.Fprintf(b, "| %s | %s | %s → %s | **%s** |\n", cell(names.change(c)), what,
			changeAmountText(c.Before, c.MonthlyCostBefore, c.MaxMonthlyCostBefore), changeAmountText(c.After, c.MonthlyCostAfter, c.MaxMonthlyCostAfter), deltaText(c.MonthlyDelta))
	}
	if len(shown) < len(rows) {
		fmt.Fprintf(b, "\n… and %s more changed resources, not shown to keep this comment under GitHub's size limit (the job log and `--format json` have them all).\n", money.Group(int64(len(rows)-len(shown))))
	}
	b.WriteString("\n")
}

// writeUnpricedText lists the head's resources that have no price, with where they are declared
// and why: the totals leave them out.
func writeUnpricedText(ew *errWriter, es []*estimator.Estimate, names resourceNames) {
	header := false
	for _, e := range es {
		if e.MonthlyCost != nil || e.UnpricedReason == nil {
			continue
		}
		if !header {
			ew.printf("\nUnpriced, not in the totals:\n")
			header = true
		}
		ew.printf("  %s  %s\n      %s\n", names.resource(e), location(e.Source.File, e.Source.Line), *e.UnpricedReason)
	}
}
