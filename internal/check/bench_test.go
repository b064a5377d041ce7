package check

import (
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/corpus"
)

// BenchmarkCheckTerraform1000 runs the whole check (discovery, HCL evaluation, pricing,
// totals) over a generated corpus of 1,000 Terraform stacks. scripts/bench-corpus.sh times
// the built binary on the same corpus.
func BenchmarkCheckTerraform1000(b *testing.B) {
	dir := b.TempDir()
	if err := corpus.WriteTerraform(dir, 1000); err != nil {
		b.Fatal(err)
	}
	cat := catalog.MustDefault()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		doc := Run([]string{dir}, Options{Catalog: cat})
		if len(doc.Errors) > 0 || len(doc.Resources) < 3000 {
			b.Fatalf("errors %v, %d resources", doc.Errors, len(doc.Resources))
		}
	}
}
