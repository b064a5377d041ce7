package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
)

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "\\", "\\\\")
	s = strings.ReplaceAll(s, "|", "\\|")
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "<", "&lt;")
	return s
}

// code renders text as an inline code span (CommonMark 6.1): the fence is one backtick longer
// than the longest run of backticks in the text, and a space pads text that starts or ends with
// a backtick (or with spaces on both sides, which the reader would strip). Line breaks become
// spaces, as a code span shows them anyway, so a span never ends a list item or table row.
func code(s string) string {
	s = lineBreaks.Replace(s)
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		(len(s) > 1 && s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "") {
		s = " " + s + " "
	}
	return fence + s + fence
}

var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// cell makes rendered Markdown (code spans, links) safe inside a table cell. GitHub splits a row
// at every pipe before it parses the cells' inline content, code spans included, and takes an
// escaped pipe as a literal one even there: a for_each key with a pipe would otherwise cut its
// resource's cell in two. Text that is not yet Markdown goes through mdCell instead.
func cell(md string) string {
	return strings.ReplaceAll(md, "|", "\\|")
}

// WriteCheckMarkdown renders a check result as Markdown, resources linked to the lines that
// declare them when links is not nil.
func WriteCheckMarkdown(w io.Writer, c *result.Check, links *SourceLinks) error {
	ew := &errWriter{w: w}
	ew.printf("### gpuguard: %s/month for %d GPU resource%s\n\n", totalText(c.Totals), c.Totals.Resources, plural(c.Totals.Resources))
	names := namesOf(c.Resources)
	if len(c.Resources) > 0 {
		ew.printf("| Resource | Instance type | GPUs | Qty | Purchase | Region | Monthly | Fit |\n|---|---|---|--:|---|---|--:|---|\n")
		for i := range c.Resources {
			e := &c.Resources[i]
			ew.printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", cell(links.code(names.resource(e), e.Source.File, e.Source.Line, false)), mdCell(orDash(e.InstanceType)), mdCell(gpuText(e)),
				quantityText(e), purchaseText(e), mdCell(orDash(e.Region)), monthlyRangeText(e), fitText(e))
		}
		ew.printf("\n")
		if s := scaleMaxSentence(c.Resources, c.Totals); s != "" {
			ew.printf("%s\n\n", s)
		}
	}
	var unpriced []string
	for i := range c.Resources {
		e := &c.Resources[i]
		if e.UnpricedReason != nil {
			unpriced = append(unpriced, fmt.Sprintf("- %s (%s): %s", links.code(names.resource(e), e.Source.File, e.Source.Line, false), mdCell(location(e.Source.File, e.Source.Line)), mdCell(*e.UnpricedReason)))
		}
	}
	if len(unpriced) > 0 {
		ew.printf("**Unpriced (not in the total):**\n%s\n\n", strings.Join(unpriced, "\n"))
	}
	writeSavingsMarkdown(ew, estimates(c), names, links)
	writeFindingsMarkdown(ew, c.Findings, names, links)
	for _, part := range []struct {
		title string
		list  []parser.Error
	}{{"Errors", c.Errors}, {"Warnings", c.Warnings}} {
		if len(part.list) > 0 {
			ew.printf("**%s:**\n", part.title)
			for _, e := range part.list {
				ew.printf("- %s\n", mdCell(e.Error()))
			}
			ew.printf("\n")
		}
	}
	writeSourcesMarkdown(ew, c.Catalog, fmt.Sprintf("%g hours a month", c.HoursPerMonth), c.Totals.Estimated > 0, boundsNote(estimates(c)))
	return ew.err
}

func writeFindingsMarkdown(ew *errWriter, findings []result.Finding, names resourceNames, links *SourceLinks) {
	active := 0
	for _, f := range findings {
		if !f.Suppressed {
			active++
		}
	}
	if active == 0 {
		return
	}
	ew.printf("**Guardrails:**\n\n| | Rule | Resource | Finding |\n|---|---|---|---|\n")
	for _, f := range sortedFindings(findings) {
		if f.Suppressed {
			continue
		}
		msg := mdCell(f.Message)
		if f.Remediation != "" {
			msg += "<br>Fix: " + mdCell(f.Remediation)
		}
		addr := links.text("all resources", f.File, f.Line)
		if f.Address != "" {
			addr = links.code(names.finding(f), f.File, f.Line, false)
		}
		ew.printf("| %s | %s | %s | %s |\n", severityIcon(f.Severity), mdCell(f.Rule), cell(addr), msg)
	}
	ew.printf("\n")
}

func severityIcon(s result.Severity) string {
	switch s {
	case result.Deny:
		return "❌ deny"
	case result.Warn:
		return "⚠️ warn"
	}
	return "ℹ️ notice"
}

func writeSourcesMarkdown(ew *errWriter, cat result.CatalogInfo, month string, estimated bool, bounds string) {
	ew.printf("<sub>Prices in USD for %s from gpuguard's catalog, updated %s%s", month, cat.Updated, catalogAge(cat, "`"))
	if cat.Overlay != "" {
		ew.printf(", with the overlay %s", code(cat.Overlay))
	}
	ew.printf(" (%d sources; `gpuguard pricing list` shows each).", len(cat.Sources))
	if estimated {
		ew.printf(" * marks an estimated price.")
	}
	if bounds != "" {
		ew.printf(" %s", bounds)
	}
	ew.printf("</sub>\n")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeSavingsMarkdown is writeSavingsText's list as a table, each resource linked to its source.
func writeSavingsMarkdown(ew *errWriter, es []*estimator.Estimate, names resourceNames, links *SourceLinks) {
	rows := savingRows(es, names.resource)
	if len(rows) == 0 {
		return
	}
	lines := make([]string, len(rows))
	for i, x := range rows {
		who := make([]string, len(x.of))
		for j, e := range x.of {
			who[j] = links.code(names.resource(e), e.Source.File, e.Source.Line, false)
		}
		lines[i] = fmt.Sprintf("| %s | %s | %s |", cell(strings.Join(who, ", ")), mdCell(x.text()), mdCell(x.r.Reason))
	}
	ew.printf("**Cheaper fits** (the biggest saving first):\n\n| Resource | Instead | Why |\n|---|---|---|\n%s\n\n", strings.Join(lines, "\n"))
}
