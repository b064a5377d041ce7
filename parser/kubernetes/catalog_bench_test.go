package kubernetes_test

import (
	"testing"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/corpus"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// BenchmarkParse3000DocumentsWithCatalog builds the stream of BenchmarkParse3000Documents with
// the embedded catalog, as gpuguard check does: each pod a NodePool admits asks the catalog
// whether the pool has an instance type for it.
func BenchmarkParse3000DocumentsWithCatalog(b *testing.B) {
	data := corpus.KubernetesStream(3000)
	opts := kubernetes.Options{GPUs: estimator.GPUCatalog{Catalog: catalog.MustDefault()}}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res := kubernetes.Parse("stream.yaml", data, opts)
		if len(res.Errors) > 0 || len(res.Resources) == 0 {
			b.Fatalf("errors %v, %d resources", res.Errors, len(res.Resources))
		}
	}
}
