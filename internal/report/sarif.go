package report

import (
	"io"
	"sort"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/gpuguard/gpuguard/internal/result"
)

// RuleInfo describes a rule for SARIF's tool metadata.
type RuleInfo struct {
	ID          string
	Title       string
	Description string
	Severity    result.Severity
}

// HelpURI is where a built-in rule is documented.
func HelpURI(id string) string {
	return "https://github.com/gpuguard/gpuguard/blob/main/docs/policies.md#" + strings.ToLower(id)
}

func sarifLevel(s result.Severity) string {
	switch s {
	case result.Deny:
		return "error"
	case result.Warn:
		return "warning"
	}
	return "note"
}

// WriteSARIF writes findings as a SARIF 2.1.0 log for code scanning, with each rule's metadata.
// Waived findings carry an accepted in-source suppression with its justification.
func WriteSARIF(w io.Writer, findings []result.Finding, rules []RuleInfo, version string) error {
	report, err := sarif.New(sarif.Version210)
	if err != nil {
		return err
	}
	run := sarif.NewRunWithInformationURI("gpuguard", "https://github.com/gpuguard/gpuguard")
	run.Tool.Driver.Version = &version
	known := map[string]RuleInfo{}
	for _, r := range rules {
		known[r.ID] = r
	}
	used := map[string]bool{}
	for _, f := range findings {
		used[f.Rule] = true
	}
	ids := make([]string, 0, len(used))
	for id := range used {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		info, ok := known[id]
		rule := run.AddRule(id)
		if !ok {
			rule.WithName(id).WithShortDescription(sarif.NewMultiformatMessageString(id))
			continue
		}
		rule.WithName(info.Title).
			WithShortDescription(sarif.NewMultiformatMessageString(info.Title)).
			WithFullDescription(sarif.NewMultiformatMessageString(info.Description)).
			WithHelpURI(HelpURI(id)).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(sarifLevel(info.Severity)))
	}
	for _, f := range findings {
		res := run.CreateResultForRule(f.Rule).
			WithLevel(sarifLevel(f.Severity)).
			WithMessage(sarif.NewTextMessage(strings.TrimSpace(f.Message + " " + f.Remediation)))
		if f.File != "" {
			pl := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(f.File))
			if f.Line > 0 {
				pl = pl.WithRegion(sarif.NewSimpleRegion(f.Line, f.Line))
			}
			res.AddLocation(sarif.NewLocationWithPhysicalLocation(pl))
		}
		if f.Suppressed {
			res.WithSuppression([]*sarif.Suppression{sarif.NewSuppression("inSource").WithStatus("accepted").WithJustifcation(f.SuppressionReason)})
		}
	}
	report.AddRun(run)
	return report.PrettyWrite(w)
}
