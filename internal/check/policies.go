package check

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gpuguard/gpuguard/internal/config"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/policies"
)

// Guardrails evaluates the policies over a check document (and, for diff, the diff) and stores
// the findings, suppressions applied. diff is nil for check.
func Guardrails(ctx context.Context, doc *result.Check, diff any, cfg *config.Config, engine *policies.Engine, now time.Time) {
	policies.MarkSuppressions(doc.Resources, now)
	if engine == nil {
		return
	}
	in := policies.NewInput(doc.Resources, doc.Totals, diff, cfg)
	fs, err := engine.Evaluate(ctx, in)
	if err != nil {
		doc.Errors = append(doc.Errors, parser.Error{File: "policies", Message: err.Error()})
		return
	}
	policies.ApplySuppressions(fs, doc.Resources)
	anchorToConfig(fs, cfg)
	if fs == nil {
		fs = []result.Finding{}
	}
	doc.Findings = fs
}

// configKey finds the config setting a finding names ("budgets.monthly_increase").
var configKey = regexp.MustCompile(`\b(budgets|required_tags|policy_data)(\.[a-z0-9_]+)*`)

// shownPath is a file's path as a report shows it: relative to the working directory when under
// it, as the scanned files are.
func shownPath(path string) string {
	if wd, err := os.Getwd(); err == nil && filepath.IsAbs(path) {
		if r, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(r, "..") {
			path = r
		}
	}
	return filepath.ToSlash(path)
}

// anchorToConfig gives the findings about no one resource (a budget over the whole change) a
// place: the config file, at the setting they name, else its first line. Code scanning needs a
// location for every result, and a reviewer needs to know which setting judged the change.
func anchorToConfig(fs []result.Finding, cfg *config.Config) {
	if cfg == nil || cfg.Path == "" {
		return
	}
	path := shownPath(cfg.Path)
	for i := range fs {
		f := &fs[i]
		if f.File != "" {
			continue
		}
		f.File = path
		f.Line = 1
		if key := configKey.FindString(f.Message + " " + f.Remediation); key != "" {
			if l := cfg.Line(key); l > 0 {
				f.Line = l
			}
		}
	}
}
