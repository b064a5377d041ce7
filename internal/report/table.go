package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
)

// WriteCheckTable renders a check result as an aligned table for a terminal.
func WriteCheckTable(w io.Writer, c *result.Check) error {
	ew := &errWriter{w: w}
	names := namesOf(c.Resources)
	switch {
	case len(c.Resources) == 0 && len(c.Warnings) > 0:
		// A module that is not followed, a manifest known only at apply: GPUs may be there.
		ew.printf("No GPU resources found in what could be read: see the warnings below for what was not.\n")
	case len(c.Resources) == 0:
		ew.printf("No GPU resources found.\n")
	default:
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ADDRESS\tINSTANCE TYPE\tGPUS\tQTY\tPURCHASE\tREGION\tMONTHLY\tFIT")
		unpriced := 0
		for i := range c.Resources {
			e := &c.Resources[i]
			mt := monthlyRangeText(e)
			if e.MonthlyCost == nil {
				unpriced++
				mt = fmt.Sprintf("unpriced (%d)", unpriced)
			}
			it := e.InstanceType
			if it == "" {
				it = "?"
			}
			region := e.Region
			if region == "" {
				region = "?"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", names.resource(e), it, gpuText(e), quantityText(e), purchaseText(e), region, mt, fitText(e))
		}
		tw.Flush()
		ew.printf("\nTotal: %s/month for %d GPU resource%s", totalText(c.Totals), c.Totals.Resources, plural(c.Totals.Resources))
		var extra []string
		if c.Totals.Unpriced > 0 {
			extra = append(extra, fmt.Sprintf("%d unpriced, not in the total", c.Totals.Unpriced))
		}
		if c.Totals.Estimated > 0 {
			extra = append(extra, fmt.Sprintf("%d with estimated prices (*)", c.Totals.Estimated))
		}
		lower, upper := boundCounts(estimates(c))
		if lower > 0 {
			extra = append(extra, fmt.Sprintf("%d priced at a lower bound (≥)", lower))
		}
		if upper > 0 {
			extra = append(extra, fmt.Sprintf("%d priced at an upper bound (≤)", upper))
		}
		if n := onNodeGroups(c.Resources); n > 0 {
			extra = append(extra, fmt.Sprintf("%d whose pods run on a node group listed, counted within it", n))
		}
		if len(extra) > 0 {
			ew.printf(" (%s)", strings.Join(extra, "; "))
		}
		ew.printf("\n")
		if s := scaleMaxSentence(c.Resources, c.Totals); s != "" {
			ew.printf("%s\n", s)
		}
		if s := boundsNote(estimates(c)); s != "" {
			ew.printf("%s\n", s)
		}
		if unpriced > 0 {
			ew.printf("\nUnpriced:\n")
			n := 0
			for i := range c.Resources {
				e := &c.Resources[i]
				if e.MonthlyCost != nil {
					continue
				}
				n++
				ew.printf("  (%d) %s  %s\n      %s\n", n, names.resource(e), location(e.Source.File, e.Source.Line), *e.UnpricedReason)
			}
		}
	}
	writeSavingsText(ew, estimates(c), names)
	writeFindingsText(ew, c.Findings, names)
	writeProblemsText(ew, c.Errors, c.Warnings)
	ew.printf("\nPrices: USD, %g hours a month, catalog updated %s%s", c.HoursPerMonth, c.Catalog.Updated, catalogAge(c.Catalog, ""))
	if c.Catalog.Overlay != "" {
		ew.printf(" with overlay %s", c.Catalog.Overlay)
	}
	ew.printf(" (sources: gpuguard pricing list).\n")
	return ew.err
}

func writeFindingsText(ew *errWriter, findings []result.Finding, names resourceNames) {
	if len(findings) == 0 {
		return
	}
	ew.printf("\nFindings:\n")
	for _, f := range sortedFindings(findings) {
		sev := strings.ToUpper(string(f.Severity))
		if f.Suppressed {
			sev = "suppressed " + string(f.Severity)
		}
		addr := names.finding(f)
		if addr == "" {
			addr = "(all resources)"
		}
		ew.printf("  %-6s %s %s  %s\n", sev, f.Rule, addr, location(f.File, f.Line))
		ew.printf("         %s\n", f.Message)
		if f.Remediation != "" {
			ew.printf("         fix: %s\n", f.Remediation)
		}
		if f.Suppressed && f.SuppressionReason != "" {
			ew.printf("         waived: %s\n", f.SuppressionReason)
		}
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// errWriter remembers the first write error, so renderers stay readable.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, nil
}

func (e *errWriter) printf(format string, args ...any) {
	fmt.Fprintf(e, format, args...)
}

// fitText is the short fit column: the verdict and the share of memory used.
func fitText(e *estimator.Estimate) string {
	if e.Fit == nil || e.Fit.Verdict == estimator.VerdictUnknown {
		if e.Profile != nil {
			return "unknown"
		}
		return "-"
	}
	if e.Fit.MemoryUtilization != nil {
		return fmt.Sprintf("%s %.0f%%", e.Fit.Verdict, *e.Fit.MemoryUtilization*100)
	}
	return e.Fit.Verdict
}

func recommendationText(r estimator.Recommendation) string {
	star := estimatedMark(r.PriceEstimated)
	return fmt.Sprintf("%s: %s%s/month, saves %s%s", recommendationWhat(r), money.Micros(r.MonthlyCost), star, money.Micros(r.MonthlySaving), star)
}

// recommendationWhat names what a recommendation moves to ("g6.xlarge on spot").
func recommendationWhat(r estimator.Recommendation) string {
	what := r.Node()
	switch r.Kind {
	case estimator.RecSpot:
		what = r.InstanceType + " on spot"
	case estimator.RecCommitment:
		what = r.InstanceType + " with a " + map[string]string{"reserved_1y": "1-year", "reserved_3y": "3-year"}[r.PurchaseOption] + " commitment"
	case estimator.RecMIG:
		what = "a MIG slice"
		if r.MIGProfile != "" {
			what = "a " + r.MIGProfile + " MIG slice"
		}
	}
	return what
}

// text is a row's recommendation: for several resources, the cost is each one's and the saving
// all of theirs ("g6.xlarge: $49.90/month each, saves $59.88 ($29.94 each)").
func (x savingRow) text() string {
	if len(x.of) == 1 {
		return recommendationText(x.r)
	}
	return fmt.Sprintf("%s: %s%s/month each, saves %s", recommendationWhat(x.r), money.Micros(x.r.MonthlyCost), estimatedMark(x.r.PriceEstimated), x.saves())
}

// writeProblemsText lists input errors and warnings with file and line.
func writeProblemsText(ew *errWriter, errs, warns []parser.Error) {
	for _, part := range []struct {
		title string
		list  []parser.Error
	}{{"Errors", errs}, {"Warnings", warns}} {
		if len(part.list) > 0 {
			ew.printf("\n%s:\n", part.title)
			for _, e := range part.list {
				ew.printf("  %s\n", e.Error())
			}
		}
	}
}

// catalogAge says how old the catalog's newest price was at the run (", 66 days before this
// run"), and that prices may have changed once it is older than catalog.StaleAfterDays. quote
// wraps the command (a backtick in Markdown). Documents without an age get nothing.
func catalogAge(cat result.CatalogInfo, quote string) string {
	if cat.AgeDays == nil {
		return ""
	}
	days := *cat.AgeDays
	s := fmt.Sprintf(", %d day%s before this run", days, plural(days))
	if days > catalog.StaleAfterDays {
		s += fmt.Sprintf(": prices may have changed since (%sgpuguard pricing update%s writes a fresher overlay)", quote, quote)
	}
	return s
}

// estimatedMark is the star every figure derived from an estimated price carries.
func estimatedMark(estimated bool) string {
	if estimated {
		return "*"
	}
	return ""
}

// writeSavingsText lists the best recommendation of every resource, the biggest saving first;
// resources with the same recommendation share an entry, which names them all.
func writeSavingsText(ew *errWriter, es []*estimator.Estimate, names resourceNames) {
	rows := savingRows(es, names.resource)
	if len(rows) == 0 {
		return
	}
	lines := make([]string, len(rows))
	for i, x := range rows {
		who := make([]string, len(x.of))
		for j, e := range x.of {
			who[j] = names.resource(e)
		}
		lines[i] = fmt.Sprintf("  %s\n      %s\n      %s", strings.Join(who, ", "), x.text(), x.r.Reason)
	}
	total, estimated := estimator.Savings(es)
	ew.printf("\nCheaper fits (the best per resource, the biggest saving first; up to %s%s/month in all):\n%s\n", total, estimatedMark(estimated), strings.Join(lines, "\n"))
}

// onNodeGroups counts the resources whose pods run on a node group among the resources: the
// totals count them within it.
func onNodeGroups(es []estimator.Estimate) int {
	n := 0
	for i := range es {
		if es[i].NodeGroup != "" {
			n++
		}
	}
	return n
}
