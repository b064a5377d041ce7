package check

import (
	"context"
	"testing"
	"time"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/config"
	"github.com/gpuguard/gpuguard/internal/corpus"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/policies"
)

// BenchmarkCheckTerraform1000 runs the whole check (discovery, HCL evaluation, pricing,
// totals) over a generated corpus of 1,000 Terraform stacks. scripts/bench-corpus.sh times
// the built binary on the same corpus.
func BenchmarkCheckTerraform1000(b *testing.B) {
	dir := b.TempDir()
	if err := corpus.WriteTerraform(dir, 1000); err != nil {
		b.Fatal(err)
	}
	opts := Options{Catalog: catalog.MustDefault()}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		doc := Run([]string{dir}, opts)
		if len(doc.Errors) > 0 || len(doc.Resources) < 3000 {
			b.Fatalf("errors %v, %d resources", doc.Errors, len(doc.Resources))
		}
	}
}

// BenchmarkGuardrailsCorpus4000 evaluates the built-in rules, as check does, over what check
// finds in a generated corpus of 1,280 stacks with workload profiles attached: 4,162 real
// estimates (fit verdicts and recommendations from the estimator), most built-in rules firing on
// some of them. It complements policies.BenchmarkEvaluate4000, whose synthetic input gives
// every resource four recommendations.
func BenchmarkGuardrailsCorpus4000(b *testing.B) {
	dir := b.TempDir()
	if err := corpus.WriteTerraform(dir, 1280); err != nil {
		b.Fatal(err)
	}
	if err := corpus.AttachProfiles(dir); err != nil {
		b.Fatal(err)
	}
	cfg, err := config.Load(config.Find(dir), dir)
	if err != nil || len(cfg.Profiles) == 0 {
		b.Fatalf("corpus config: %v, %d profiles", err, len(cfg.Profiles))
	}
	opts := Options{Catalog: catalog.MustDefault(), Config: cfg}
	doc := Run([]string{dir}, opts)
	if len(doc.Errors) > 0 || len(doc.Resources) < 4000 {
		b.Fatalf("errors %v, %d resources", doc.Errors, len(doc.Resources))
	}
	engine, err := policies.New(context.Background(), policies.Options{})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	var findings []result.Finding
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		doc.Findings = nil
		Guardrails(context.Background(), doc, nil, opts.Config, engine, now)
		findings = doc.Findings
	}
	b.StopTimer()
	rules := map[string]bool{}
	for _, f := range findings {
		rules[f.Rule] = true
	}
	// GPU001 needs budgets, GPU006 an unpriced type, GPU010 a bad suppression: the corpus has none.
	for _, id := range []string{"GPU002", "GPU003", "GPU004", "GPU005", "GPU007", "GPU008", "GPU009"} {
		if !rules[id] {
			b.Fatalf("%s did not fire on the corpus (%d findings)", id, len(findings))
		}
	}
	b.ReportMetric(float64(len(findings)), "findings")
}
