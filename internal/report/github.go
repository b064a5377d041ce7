package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
)

// MaxAnnotationsPerLevel is how many annotations of one level GitHub shows for a step; more are
// dropped by GitHub, so gpuguard prints that many and a summary line.
const MaxAnnotationsPerLevel = 10

// escapeData escapes a workflow command's message (GitHub's toolkit: % \r \n).
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value (also : and ,).
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// WriteGitHubAnnotations prints findings as workflow commands (::error, ::warning, ::notice)
// with file, line and title, most severe first, at most MaxAnnotationsPerLevel per level, and a
// summary notice for the rest (a notice slot is kept free for it). Waived findings are not
// annotated; input errors are errors, input warnings (a module not followed) warnings.
func WriteGitHubAnnotations(w io.Writer, findings []result.Finding, errs, warns []parser.Error) error {
	ew := &errWriter{w: w}
	var all []result.Finding
	for _, e := range errs {
		all = append(all, result.Finding{Rule: "input", Title: "could not read input", Severity: result.Deny, File: e.File, Line: e.Line, Message: e.Message})
	}
	for _, e := range warns {
		all = append(all, result.Finding{Rule: "input", Title: "read in part", Severity: result.Warn, File: e.File, Line: e.Line, Message: e.Message})
	}
	for _, f := range sortedFindings(findings) {
		if !f.Suppressed {
			all = append(all, f)
		}
	}
	level := func(f result.Finding) string {
		switch f.Severity {
		case result.Deny:
			return "error"
		case result.Warn:
			return "warning"
		}
		return "notice"
	}
	total := map[string]int{}
	for _, f := range all {
		total[level(f)]++
	}
	limit := map[string]int{"error": MaxAnnotationsPerLevel, "warning": MaxAnnotationsPerLevel, "notice": MaxAnnotationsPerLevel}
	if total["error"] > MaxAnnotationsPerLevel || total["warning"] > MaxAnnotationsPerLevel || total["notice"] > MaxAnnotationsPerLevel {
		limit["notice"]--
	}
	counts := map[string]int{}
	hidden := 0
	for _, f := range all {
		cmd := level(f)
		if counts[cmd] >= limit[cmd] {
			hidden++
			continue
		}
		counts[cmd]++
		var props []string
		if f.File != "" {
			props = append(props, "file="+escapeProperty(f.File))
			if f.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", f.Line))
			}
		}
		title := f.Rule
		if f.Title != "" {
			title += " " + f.Title
		}
		props = append(props, "title="+escapeProperty("gpuguard "+title))
		msg := f.Message
		if f.Remediation != "" {
			msg += "\n" + f.Remediation
		}
		ew.printf("::%s %s::%s\n", cmd, strings.Join(props, ","), escapeData(msg))
	}
	if hidden > 0 {
		ew.printf("::notice title=gpuguard::%d more finding%s not shown as annotations (GitHub shows %d per level and step); the job log and the JSON report list them all.\n",
			hidden, map[bool]string{true: "s are", false: " is"}[hidden != 1], MaxAnnotationsPerLevel)
	}
	return ew.err
}
