package check

import (
	"context"
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
	if fs == nil {
		fs = []result.Finding{}
	}
	doc.Findings = fs
}
