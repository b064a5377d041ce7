package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/result"
)

// explanation is what a reader needs to trace one resource's numbers without the JSON: how its
// month is counted, where each price comes from (source, date and basis), its maximum, the
// notes its estimate carries (defaults taken, shares, lower bounds) and its memory fit.
func explanation(e *estimator.Estimate) []string {
	var lines []string
	star := estimatedMark(e.PriceEstimated)
	switch {
	case e.MonthlyCost != nil && e.HourlyCost != nil:
		of := ""
		if e.Quantity != 1 {
			of = " for " + quantityNoun(e)
		}
		lines = append(lines, fmt.Sprintf("cost: %s%s an hour%s × %g hours = %s%s a month",
			rateText(money.Micros(*e.HourlyCost)), star, of, e.HoursPerMonth, money.Micros(*e.MonthlyCost), star))
	case e.MonthlyCost != nil:
		lines = append(lines, fmt.Sprintf("cost: %s%s a month", money.Micros(*e.MonthlyCost), star))
	case e.UnpricedReason != nil:
		lines = append(lines, "unpriced, not in the totals: "+*e.UnpricedReason)
	}
	for _, s := range e.PriceSources {
		line := fmt.Sprintf("price of %s, %s, in %s: %s", s.InstanceType, strings.ReplaceAll(s.PurchaseOption, "_", "-"), s.Region, s.Source)
		if s.Date != "" {
			line += ", " + s.Date
		} else {
			line += ", undated"
		}
		if s.Basis != "" {
			line += " (" + s.Basis + ")"
		}
		if s.Estimated {
			line += " — an estimate"
		}
		lines = append(lines, line)
	}
	if m := e.ScaleMax; m != nil {
		from := ""
		if m.From != "" {
			from = " (" + m.From + ")"
		}
		lines = append(lines, fmt.Sprintf("at its maximum of %d%s: %s%s a month", m.Quantity, from, money.Micros(m.MonthlyCost), estimatedMark(m.PriceEstimated)))
	}
	for _, n := range e.Notes {
		lines = append(lines, "note: "+n)
	}
	if f := e.Fit; f != nil && (f.Verdict != estimator.VerdictUnknown || e.Profile != nil) {
		line := "fit: " + strings.ReplaceAll(f.Verdict, "_", " ")
		if f.RequiredGiBPerGPU != nil && f.AvailableGiBPerGPU != nil {
			line += fmt.Sprintf(", %.1f of %.1f GiB per GPU", *f.RequiredGiBPerGPU, *f.AvailableGiBPerGPU)
		}
		if f.Source != "" {
			line += " (" + f.Source + ")"
		}
		if f.Reason != "" {
			line += ": " + f.Reason
		}
		if e.Profile != nil {
			line += "; profile " + *e.Profile
		}
		lines = append(lines, line)
	}
	return lines
}

// rateText is an hourly rate to the micro-dollar gpuguard computes in, without the trailing
// zeros past the cents, so that rate × hours gives the month shown: "$5.48941", "$110.08".
func rateText(m money.Micros) string {
	d := m.Decimal(6)
	whole, frac, _ := strings.Cut(d, ".")
	frac = strings.TrimRight(frac, "0")
	for len(frac) < 2 {
		frac += "0"
	}
	sign := ""
	if strings.HasPrefix(whole, "-") {
		sign, whole = "-", whole[1:]
	}
	return sign + "$" + money.GroupDigits(whole) + "." + frac
}

// quantityNoun names what the hourly rate covers: "2 instances", "1 pod".
func quantityNoun(e *estimator.Estimate) string {
	noun := "instance"
	switch {
	case e.Pod != nil:
		noun = "pod"
	case strings.Contains(e.Type, "node_group") || strings.Contains(e.Type, "node_pool") || strings.Contains(e.Type, "NodePool"):
		noun = "node"
	}
	if e.Quantity != 1 {
		noun += "s"
	}
	return fmt.Sprintf("%d %s", e.Quantity, noun)
}

// WriteCheckExplanationText follows a check table with how each resource's numbers are made
// (check --explain).
func WriteCheckExplanationText(w io.Writer, c *result.Check) error {
	return writeExplanationText(w, estimates(c), namesOf(c.Resources))
}

// WriteDiffExplanationText follows a diff table with the same for the head's resources that
// the pull request adds or changes (diff --explain).
func WriteDiffExplanationText(w io.Writer, d *result.Diff) error {
	return writeExplanationText(w, changedHead(d), diffNames(d))
}

// changedHead are the head's estimates of the resources a diff adds or changes.
func changedHead(d *result.Diff) []*estimator.Estimate {
	var es []*estimator.Estimate
	for _, ch := range d.Changes {
		if ch.After != nil && ch.Change != "unchanged" {
			es = append(es, ch.After)
		}
	}
	return es
}

func writeExplanationText(w io.Writer, es []*estimator.Estimate, names resourceNames) error {
	if len(es) == 0 {
		return nil
	}
	ew := &errWriter{w: w}
	ew.printf("\nHow each number is made:\n")
	for _, e := range es {
		ew.printf("  %s  %s\n", names.resource(e), location(e.Source.File, e.Source.Line))
		for _, l := range explanation(e) {
			ew.printf("      %s\n", l)
		}
	}
	return ew.err
}

// WriteCheckExplanationMarkdown is WriteCheckExplanationText for the Markdown report: a list,
// each resource linked to its source, with its lines under it.
func WriteCheckExplanationMarkdown(w io.Writer, c *result.Check, links *SourceLinks) error {
	return writeExplanationMarkdown(w, estimates(c), namesOf(c.Resources), links)
}

// WriteDiffExplanationMarkdown is WriteDiffExplanationText for the Markdown report.
func WriteDiffExplanationMarkdown(w io.Writer, d *result.Diff, links *SourceLinks) error {
	return writeExplanationMarkdown(w, changedHead(d), diffNames(d), links)
}

func writeExplanationMarkdown(w io.Writer, es []*estimator.Estimate, names resourceNames, links *SourceLinks) error {
	if len(es) == 0 {
		return nil
	}
	ew := &errWriter{w: w}
	ew.printf("**How each number is made:**\n\n")
	for _, e := range es {
		ew.printf("- %s (%s)\n", code(names.resource(e)), links.text(mdCell(location(e.Source.File, e.Source.Line)), e.Source.File, e.Source.Line))
		for _, l := range explanation(e) {
			ew.printf("  - %s\n", mdCell(l))
		}
	}
	ew.printf("\n")
	return ew.err
}

// estimates are a check's resources, as the lists that also serve a diff's changes take them.
func estimates(c *result.Check) []*estimator.Estimate {
	es := make([]*estimator.Estimate, len(c.Resources))
	for i := range c.Resources {
		es[i] = &c.Resources[i]
	}
	return es
}
