package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
)

// CommentMarker finds gpuguard's pull-request comment again.
const CommentMarker = "<!-- gpuguard:comment -->"

// MaxCommentChars is GitHub's limit on a comment body.
const MaxCommentChars = 65536

// level of detail, from everything to the bare minimum.
type detail struct {
	changes      int  // changed rows shown (-1: all)
	unchanged    bool // list unchanged resources in a collapsed section
	notices      bool // list notices in a collapsed section
	fits         int  // memory-fit rows (-1: all)
	savings      int  // savings rows
	findings     int  // deny/warn rows
	findingsText bool // remediation text in findings
	errors       int  // input errors listed
}

var details = []detail{
	{changes: -1, unchanged: true, notices: true, fits: -1, savings: -1, findings: -1, findingsText: true, errors: 20},
	{changes: -1, unchanged: false, notices: false, fits: 50, savings: 50, findings: 100, findingsText: true, errors: 20},
	{changes: 400, fits: 30, savings: 30, findings: 60, findingsText: true, errors: 20},
	{changes: 200, fits: 20, savings: 20, findings: 50, errors: 10},
	{changes: 100, fits: 10, savings: 10, findings: 30, errors: 10},
	{changes: 40, fits: 5, savings: 5, findings: 15, errors: 5},
	{changes: 10, findings: 10, errors: 3},
	{changes: 0, findings: 5, errors: 0},
}

// DiffComment renders the pull-request comment for a diff: the monthly total before → after with
// the change in dollars and percent, the changed GPU resources (largest change first), failed and
// warned guardrails, memory-fit verdicts, savings in dollars, and where prices come from. It
// stays under max characters (GitHub's limit by default) by collapsing detail first, then
// truncating with a note. With links, resources are linked to the lines that declare them.
func DiffComment(d *result.Diff, max int, links *SourceLinks) string {
	if max <= 0 {
		max = MaxCommentChars
	}
	var out string
	for _, lv := range details {
		out = renderDiffComment(d, lv, links)
		if len([]rune(out)) <= max {
			return out
		}
	}
	return truncate(out, max)
}

// CheckComment renders a check document as a comment (no base to compare with).
func CheckComment(c *result.Check, max int, links *SourceLinks) string {
	if max <= 0 {
		max = MaxCommentChars
	}
	var b strings.Builder
	b.WriteString(CommentMarker + "\n")
	ew := &errWriter{w: &b}
	_ = WriteCheckMarkdown(ew, c, links)
	out := b.String()
	if len([]rune(out)) > max {
		return truncate(out, max)
	}
	return out
}

func truncate(s string, max int) string {
	note := "\n\n… truncated to fit GitHub's comment size limit; the job log has the full report.\n"
	r := []rune(s)
	cut := max - len([]rune(note))
	if cut < 0 {
		cut = 0
	}
	if cut < len(r) {
		r = r[:cut]
	}
	return string(r) + note
}

func headline(d *result.Diff) string {
	delta := money.Micros(d.Totals.MonthlyDelta)
	icon := "➖"
	switch {
	case delta.Cents() > 0:
		icon = "📈"
	case delta.Cents() < 0:
		icon = "📉"
	}
	unpriced := ""
	if n := d.Head.Unpriced; n > 0 {
		unpriced = fmt.Sprintf(" — ⚠️ %d GPU resource%s not priced", n, plural(n))
	}
	// A change of the autoscalers' maximums alone leaves the totals as they were: the headline
	// says it, so that a pull request raising a maximum eightfold does not read "no change".
	atMax := ""
	if b, h := d.Totals.MaxMonthlyCostBefore, d.Totals.MaxMonthlyCostAfter; b != nil && h != nil && money.Micros(*b).Cents() != money.Micros(*h).Cents() {
		atMax = fmt.Sprintf(" — up to %s at full scale-out (%s)", money.Micros(*h), (money.Micros(*h).RoundCents() - money.Micros(*b).RoundCents()).Signed())
	}
	before, after := diffTotalsText(d)
	return fmt.Sprintf("### %s gpuguard: GPU spend %s → %s a month (%s, %s)%s%s\n\n", icon,
		before, after, delta.Signed(), percentText(d), atMax, unpriced)
}

// writeCommentErrors lists the inputs that could not be read, with file and line.
func writeCommentErrors(b *strings.Builder, errs []parser.Error, limit int) {
	if len(errs) == 0 {
		return
	}
	fmt.Fprintf(b, "**%d input error%s** — the totals leave out what could not be read:\n", len(errs), plural(len(errs)))
	writeCommentProblems(b, errs, limit)
}

// writeCommentWarnings lists the inputs read only in part (a module source not followed, a
// skipped file), and the declarations that would not work as written (a GPU VM Compute Engine
// refuses, pods no node group admits): a comment that says "no GPU resources" must say what it
// could not see, and a total must not read as if everything in it would run.
func writeCommentWarnings(b *strings.Builder, warns []parser.Error, limit int) {
	if len(warns) == 0 {
		return
	}
	fmt.Fprintf(b, "**%d input warning%s** — inputs read only in part, or that would not apply or run as written:\n", len(warns), plural(len(warns)))
	writeCommentProblems(b, warns, limit)
}

func writeCommentProblems(b *strings.Builder, errs []parser.Error, limit int) {
	for i, e := range errs {
		if i == limit {
			fmt.Fprintf(b, "- … and %s more (see the job log)\n", count(len(errs)-limit))
			break
		}
		fmt.Fprintf(b, "- %s\n", mdCell(e.Error()))
	}
	b.WriteString("\n")
}

func renderDiffComment(d *result.Diff, lv detail, links *SourceLinks) string {
	names := refs{multi: multiRoot(d), links: links}
	var b strings.Builder
	b.WriteString(CommentMarker + "\n")
	b.WriteString(headline(d))
	deny, warn, notice := 0, 0, 0
	for _, f := range d.Findings {
		if f.Suppressed {
			continue
		}
		switch f.Severity {
		case result.Deny:
			deny++
		case result.Warn:
			warn++
		default:
			notice++
		}
	}
	a, r, c, u := changeCounts(d)
	var status []string
	if deny > 0 {
		status = append(status, fmt.Sprintf("❌ **%s guardrail%s failed**", count(deny), plural(deny)))
	}
	if warn > 0 {
		status = append(status, fmt.Sprintf("⚠️ %s warning%s", count(warn), plural(warn)))
	}
	if deny+warn == 0 {
		status = append(status, "✅ guardrails passed")
	}
	moved := ""
	if n := movedCount(d, ""); n > 0 {
		moved = " · " + count(n) + " moved"
	}
	status = append(status, fmt.Sprintf("%s added · %s removed · %s changed · %s unchanged%s", count(a), count(r), count(c), count(u), moved))
	b.WriteString(strings.Join(status, " · ") + "\n\n")
	if s := scaleMaxDiffSentence(d); s != "" {
		b.WriteString(s + "\n\n")
	}
	writeDiffChangesMarkdown(&b, d, lv.changes, names)
	if lv.unchanged && u > 0 {
		fmt.Fprintf(&b, "<details><summary>%d unchanged GPU resource%s</summary>\n\n| Resource | Instance | Monthly |\n|---|---|--:|\n", u, plural(u))
		for _, ch := range d.Changes {
			if ch.Change == "unchanged" {
				what := mdCell(sideText(ch.After))
				if ch.MovedFrom != "" {
					what += " — moved from " + cell(code(ch.MovedFrom))
				}
				fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(names.change(ch)), what, amountText(ch.MonthlyCostAfter))
			}
		}
		b.WriteString("\n</details>\n\n")
	}
	writeCommentFindings(&b, d.Findings, lv, names)
	after := headResources(d)
	writeCommentFits(&b, after, lv.fits, names)
	writeCommentSavings(&b, after, lv.savings, names)
	writeCommentUnpriced(&b, after, names)
	writeCommentErrors(&b, d.Errors, lv.errors)
	writeCommentWarnings(&b, d.Warnings, lv.errors)
	ew := &errWriter{w: &b}
	writeSourcesMarkdown(ew, d.Catalog, diffMonth(d), anyEstimated(after), boundsNote(after))
	return b.String()
}

func headResources(d *result.Diff) []*estimator.Estimate {
	var out []*estimator.Estimate
	for _, c := range d.Changes {
		if c.After != nil {
			out = append(out, c.After)
		}
	}
	return out
}

func anyEstimated(es []*estimator.Estimate) bool {
	for _, e := range es {
		if e.PriceEstimated {
			return true
		}
	}
	return false
}

// groupAbove is how many findings of one rule are listed one by one; beyond it they share a row.
const groupAbove = 3

// members are the resources a row of the comment stands for: how many, and the first few by
// name.
type members struct {
	count int
	names []string // rendered ("" for a finding about no resource)
}

func (m *members) add(name string) {
	m.count++
	if len(m.names) < groupAbove {
		m.names = append(m.names, name)
	}
}

// label names them: the one resource, or "**5 resources**: a, b, c and 2 more".
func (m members) label() string {
	who := strings.Join(m.names, ", ")
	if m.count == 1 {
		return who
	}
	if m.count > len(m.names) {
		who = fmt.Sprintf("%s and %s more", who, count(m.count-len(m.names)))
	}
	return fmt.Sprintf("**%s resources**: %s", count(m.count), who)
}

// findingRow is one row of the guardrails table: a finding, or a rule's findings together.
type findingRow struct {
	f result.Finding
	members
}

func findingRows(fs []result.Finding, names refs) []findingRow {
	byRule := map[string]int{}
	for _, f := range fs {
		byRule[string(f.Severity)+"\x00"+f.Rule]++
	}
	var rows []findingRow
	group := map[string]int{} // rule → row index
	for _, f := range fs {
		key := string(f.Severity) + "\x00" + f.Rule
		name := ""
		if f.Address != "" {
			name = names.finding(f)
		}
		if byRule[key] <= groupAbove {
			rows = append(rows, findingRow{f, members{1, []string{name}}})
			continue
		}
		i, ok := group[key]
		if !ok {
			i = len(rows)
			group[key] = i
			rows = append(rows, findingRow{f: f})
		}
		rows[i].add(name)
	}
	return rows
}

func writeCommentFindings(b *strings.Builder, fs []result.Finding, lv detail, names refs) {
	var main, notices []result.Finding
	for _, f := range sortedFindings(fs) {
		if f.Suppressed {
			continue
		}
		if f.Severity == result.Notice {
			notices = append(notices, f)
		} else {
			main = append(main, f)
		}
	}
	if len(main) > 0 {
		b.WriteString("#### Guardrails\n\n| | Rule | Resource | Finding |\n|---|---|---|---|\n")
		rows := findingRows(main, names)
		shown := rows
		if lv.findings >= 0 && len(rows) > lv.findings {
			shown = rows[:lv.findings]
		}
		for _, r := range shown {
			msg := mdCell(r.f.Message)
			if r.count > 1 {
				msg = "for example: " + msg
			}
			if lv.findingsText && r.f.Remediation != "" {
				msg += "<br>Fix: " + mdCell(r.f.Remediation)
			}
			addr := names.links.text("all resources", r.f.File, r.f.Line)
			if r.names[0] != "" {
				addr = r.label()
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", severityIcon(r.f.Severity), mdCell(r.f.Rule), cell(addr), msg)
		}
		if len(shown) < len(rows) {
			n := 0
			for _, r := range rows[len(shown):] {
				n += r.count
			}
			fmt.Fprintf(b, "\n… and %s more.\n", count(n))
		}
		b.WriteString("\n")
	}
	if len(notices) > 0 {
		if lv.notices {
			fmt.Fprintf(b, "<details><summary>%d notice%s</summary>\n\n", len(notices), plural(len(notices)))
			for _, f := range notices {
				fmt.Fprintf(b, "- %s %s\n", mdCell(f.Rule), mdCell(f.Message))
			}
			b.WriteString("\n</details>\n\n")
		} else {
			fmt.Fprintf(b, "ℹ️ %s notice%s (see the job log).\n\n", count(len(notices)), plural(len(notices)))
		}
	}
}

func writeCommentFits(b *strings.Builder, es []*estimator.Estimate, limit int, names refs) {
	var rows []*estimator.Estimate
	for _, e := range es {
		if e.Fit != nil && e.Fit.Verdict != estimator.VerdictUnknown {
			rows = append(rows, e)
		}
	}
	if len(rows) == 0 || limit == 0 {
		return
	}
	rank := map[string]int{estimator.VerdictDoesNotFit: 0, estimator.VerdictTight: 1, estimator.VerdictOversized: 2, estimator.VerdictFits: 3}
	sort.SliceStable(rows, func(i, j int) bool { return rank[rows[i].Fit.Verdict] < rank[rows[j].Fit.Verdict] })
	b.WriteString("#### Memory fit\n\n| Resource | Verdict | Needs / has per GPU |\n|---|---|---|\n")
	for i, e := range rows {
		if limit >= 0 && i >= limit {
			fmt.Fprintf(b, "\n… and %s more.\n", count(len(rows)-limit))
			break
		}
		icon := map[string]string{estimator.VerdictDoesNotFit: "❌", estimator.VerdictTight: "⚠️", estimator.VerdictOversized: "🪫", estimator.VerdictFits: "✅"}[e.Fit.Verdict]
		needs := "—"
		if e.Fit.RequiredGiBPerGPU != nil && e.Fit.AvailableGiBPerGPU != nil {
			needs = fmt.Sprintf("%.1f / %.1f GiB (%s)", *e.Fit.RequiredGiBPerGPU, *e.Fit.AvailableGiBPerGPU, e.Fit.Source)
		}
		fmt.Fprintf(b, "| %s | %s %s | %s |\n", cell(names.resource(e)), icon, strings.ReplaceAll(e.Fit.Verdict, "_", " "), needs)
	}
	b.WriteString("\n")
}

// savingRow is one row of the cheaper-fits lists: a resource's best recommendation, or the same
// recommendation for several resources (the instances of a count or for_each, the stacks of a
// scan), which share a row as the guardrails' findings do. The PR comment and the check reports
// (table, Markdown) build their lists from these rows, so they read alike.
type savingRow struct {
	r     estimator.Recommendation
	total money.Micros          // the saving of all its resources, as the figures shown add up
	of    []*estimator.Estimate // its resources, in reading order
}

// savingRows groups the resources' best recommendations, the biggest saving first (ties in
// reading order). name is how a resource reads in the report: its rows list resources in the
// order of those names, whatever the order of es.
func savingRows(es []*estimator.Estimate, name func(*estimator.Estimate) string) []savingRow {
	es = slices.Clone(es)
	slices.SortStableFunc(es, func(a, b *estimator.Estimate) int { return parser.CompareAddresses(name(a), name(b)) })
	var rows []savingRow
	at := map[string]int{} // what a row says → the row
	for _, e := range es {
		r, ok := e.Best()
		if !ok {
			continue
		}
		key := fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%d\x00%d\x00%t\x00%s", r.Kind, r.Node(), r.PurchaseOption, r.MIGProfile, r.MonthlyCost, r.MonthlySaving, r.PriceEstimated, r.Reason)
		i, grouped := at[key]
		if !grouped {
			i = len(rows)
			at[key] = i
			rows = append(rows, savingRow{r: r})
		}
		rows[i].of = append(rows[i].of, e)
		rows[i].total += money.Micros(r.MonthlySaving).RoundCents() // adds up as shown
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].total > rows[j].total })
	return rows
}

// saves is what a row saves a month: one resource's saving, or for several "$X (… each)".
func (x savingRow) saves() string {
	star := estimatedMark(x.r.PriceEstimated)
	if len(x.of) > 1 {
		return fmt.Sprintf("%s%s (%s%s each)", x.total, star, money.Micros(x.r.MonthlySaving), star)
	}
	return fmt.Sprintf("%s%s", money.Micros(x.r.MonthlySaving), star)
}

func writeCommentSavings(b *strings.Builder, es []*estimator.Estimate, limit int, names refs) {
	rows := savingRows(es, func(e *estimator.Estimate) string { return label(names.multi, e.Root, e.Address) })
	if len(rows) == 0 || limit == 0 {
		return
	}
	total, estimated := estimator.Savings(es)
	fmt.Fprintf(b, "#### Cheaper fits — up to %s%s a month\n\n| Resource | Instead | Saves a month |\n|---|---|--:|\n", total, estimatedMark(estimated))
	for i, x := range rows {
		if limit >= 0 && i >= limit {
			n := 0
			for _, r := range rows[i:] {
				n += len(r.of)
			}
			fmt.Fprintf(b, "\n… and %s more.\n", count(n))
			break
		}
		var m members
		for _, e := range x.of {
			m.add(names.resource(e))
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", cell(m.label()), mdCell(strings.SplitN(recommendationText(x.r), ":", 2)[0]+" — "+x.r.Reason), x.saves())
	}
	b.WriteString("\n")
}

func writeCommentUnpriced(b *strings.Builder, es []*estimator.Estimate, names refs) {
	var lines []string
	for _, e := range es {
		if e.UnpricedReason != nil {
			lines = append(lines, fmt.Sprintf("- %s: %s", names.resource(e), mdCell(*e.UnpricedReason)))
		}
	}
	if len(lines) == 0 {
		return
	}
	if len(lines) > 20 {
		lines = append(lines[:20], fmt.Sprintf("- … and %s more", count(len(lines)-20)))
	}
	fmt.Fprintf(b, "**Unpriced, not in the totals:**\n%s\n\n", strings.Join(lines, "\n"))
}

// count formats a count with thousands separators.
func count(n int) string { return money.Group(int64(n)) }

// diffMonth says the month a diff's prices are for: the head's, and the base's too when its
// config set another (each side reads its own). A document written before the sides recorded
// their month was priced for the default month.
func diffMonth(d *result.Diff) string {
	hours := func(s result.DiffSide) float64 {
		if s.HoursPerMonth > 0 {
			return s.HoursPerMonth
		}
		return estimator.DefaultHoursPerMonth
	}
	head, base := hours(d.Head), hours(d.Base)
	if head == base {
		return fmt.Sprintf("%g hours a month", head)
	}
	return fmt.Sprintf("%g hours a month (the base's config: %g)", head, base)
}
