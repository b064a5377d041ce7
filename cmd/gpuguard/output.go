package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/report"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/policies"
)

// ruleInfos is the metadata SARIF reports carry: the built-ins and the user's rules.
func ruleInfos(engine *policies.Engine) []report.RuleInfo {
	var out []report.RuleInfo
	seen := map[string]bool{}
	add := func(rs []*policies.Rule) {
		for _, r := range rs {
			if r.ID == "" || seen[r.ID] {
				continue
			}
			seen[r.ID] = true
			out = append(out, report.RuleInfo{ID: r.ID, Title: r.Title, Description: r.Description, Severity: r.Severity})
		}
	}
	if rs, err := policies.Builtins(); err == nil {
		add(rs)
	}
	if engine != nil {
		add(engine.Rules())
	}
	return out
}

// writeDocument renders a check or diff document in a format.
func writeDocument(w io.Writer, format report.Format, check *result.Check, diff *result.Diff, engine *policies.Engine, links *report.SourceLinks) error {
	var findings []result.Finding
	if check != nil {
		findings = check.Findings
	} else {
		findings = diff.Findings
	}
	switch format {
	case report.JSON:
		if check != nil {
			return report.WriteCheckJSON(w, check)
		}
		return report.WriteJSON(w, diff)
	case report.Table:
		if check != nil {
			return report.WriteCheckTable(w, check)
		}
		return report.WriteDiffTable(w, diff)
	case report.Markdown:
		if check != nil {
			return report.WriteCheckMarkdown(w, check, links)
		}
		_, err := io.WriteString(w, report.DiffComment(diff, 0, links))
		return err
	case report.SARIF:
		return report.WriteSARIF(w, findings, ruleInfos(engine), version)
	case report.GitHub:
		if check != nil {
			return report.WriteGitHubAnnotations(w, findings, check.Errors, check.Warnings)
		}
		return report.WriteGitHubAnnotations(w, findings, diff.Errors, diff.Warnings)
	}
	return fmt.Errorf("unknown format %s", format)
}

// writeExplanation follows a table or Markdown report with how each resource's numbers are
// made (--explain). JSON carries all of it already; SARIF and annotations are about findings.
func writeExplanation(w io.Writer, format report.Format, check *result.Check, diff *result.Diff, links *report.SourceLinks) error {
	switch {
	case format == report.Table && check != nil:
		return report.WriteCheckExplanationText(w, check)
	case format == report.Table:
		return report.WriteDiffExplanationText(w, diff)
	case format == report.Markdown && check != nil:
		return report.WriteCheckExplanationMarkdown(w, check, links)
	case format == report.Markdown:
		return report.WriteDiffExplanationMarkdown(w, diff, links)
	}
	return nil
}

// writeJSONCopy writes the JSON document to --json-output when it is set.
func writeJSONCopy(path string, check *result.Check, diff *result.Diff) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--json-output: %w", err)
	}
	if check != nil {
		err = report.WriteCheckJSON(f, check)
	} else {
		err = report.WriteJSON(f, diff)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--json-output: %w", err)
	}
	return nil
}

// maxSummaryChars bounds the Markdown appended to $GITHUB_STEP_SUMMARY: GitHub accepts up to
// 1 MiB per step, so the summary keeps far more detail than the 65,536-character comment.
const maxSummaryChars = 256 * 1024

// appendStepSummary adds the Markdown report to $GITHUB_STEP_SUMMARY when it is set. The report
// carries the comment marker, so that 'comment github' knows the summary already has it.
func appendStepSummary(e *env, check *result.Check, diff *result.Diff, links *report.SourceLinks) error {
	path := e.getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	var md string
	if check != nil {
		md = report.CheckComment(check, maxSummaryChars, links)
	} else {
		md = report.DiffComment(diff, maxSummaryChars, links)
	}
	if err := appendFile(path, md+"\n"); err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	return nil
}

// writeGitHubOutputs sets the step outputs the action declares when $GITHUB_OUTPUT is set:
// monthly-cost (the head's total), max-monthly-cost (the same with every autoscaler at its
// declared maximum), monthly-delta (empty without a base) and failed (whether the run fails:
// input errors, or findings at --fail-on).
func writeGitHubOutputs(e *env, cost, atMax money.Amount, delta *money.Amount, exit error) error {
	path := e.getenv("GITHUB_OUTPUT")
	if path == "" {
		return nil
	}
	d := ""
	if delta != nil {
		d = money.Micros(*delta).Decimal(2)
	}
	out := fmt.Sprintf("monthly-cost=%s\nmax-monthly-cost=%s\nmonthly-delta=%s\nfailed=%t\n", money.Micros(cost).Decimal(2), money.Micros(atMax).Decimal(2), d, exit != nil)
	if err := appendFile(path, out); err != nil {
		return fmt.Errorf("GITHUB_OUTPUT: %w", err)
	}
	return nil
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// publish does what check and diff do for GitHub Actions after the report is written.
func publish(e *env, check *result.Check, diff *result.Diff, exit error, links *report.SourceLinks) {
	var cost money.Amount
	var delta, scaled *money.Amount
	if check != nil {
		cost, scaled = check.Totals.MonthlyCost, check.Totals.MaxMonthlyCost
	} else {
		cost, delta, scaled = diff.Totals.MonthlyCostAfter, &diff.Totals.MonthlyDelta, diff.Totals.MaxMonthlyCostAfter
	}
	atMax := cost
	if scaled != nil {
		atMax = *scaled
	}
	for _, err := range []error{appendStepSummary(e, check, diff, links), writeGitHubOutputs(e, cost, atMax, delta, exit)} {
		if err != nil {
			fmt.Fprintf(e.stderr, "gpuguard: warning: %v\n", err)
		}
	}
}

// findingsExit applies the exit rules to errors and findings: errors win over findings.
func findingsExit(errs int, findings []result.Finding, threshold int) error {
	if errs > 0 {
		return withCode(exitError, fmt.Errorf("%d input error%s (see the report)", errs, plural(errs)))
	}
	if threshold > 0 {
		for _, f := range findings {
			if !f.Suppressed && f.Severity.Rank() >= threshold {
				return withCode(exitFindings, nil)
			}
		}
	}
	return nil
}

// emit writes a finished check or diff everywhere it goes — the report (--output or stdout),
// the JSON copy, the job summary and step outputs — and returns the run's exit.
func emit(e *env, o *commonOptions, format report.Format, threshold int, check *result.Check, diff *result.Diff, engine *policies.Engine) error {
	w, closeOut, err := outputTarget(e, o.output)
	if err != nil {
		return withCode(exitError, err)
	}
	// Where the Markdown's resources link to, worked out once and only for Markdown (the report,
	// or the job summary): it may read the event and ask git.
	var links *report.SourceLinks
	if format == report.Markdown || e.getenv("GITHUB_STEP_SUMMARY") != "" {
		links = sourceLinks(e, "", "")
	}
	if err := writeDocument(w, format, check, diff, engine, links); err != nil {
		closeOut()
		return withCode(exitError, fmt.Errorf("writing report: %w", err))
	}
	if o.explain {
		if err := writeExplanation(w, format, check, diff, links); err != nil {
			closeOut()
			return withCode(exitError, fmt.Errorf("writing report: %w", err))
		}
	}
	if err := closeOut(); err != nil {
		return withCode(exitError, fmt.Errorf("writing report: %w", err))
	}
	if err := writeJSONCopy(o.jsonOutput, check, diff); err != nil {
		return withCode(exitError, err)
	}
	exit := documentExit(check, diff, threshold)
	publish(e, check, diff, exit, links)
	return exit
}

// documentExit is the exit a check or diff document calls for.
func documentExit(check *result.Check, diff *result.Diff, threshold int) error {
	if check != nil {
		return findingsExit(len(check.Errors), check.Findings, threshold)
	}
	return findingsExit(len(diff.Errors), diff.Findings, threshold)
}
