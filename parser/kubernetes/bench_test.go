package kubernetes

import (
	"testing"

	"github.com/gpuguard/gpuguard/internal/corpus"
)

// BenchmarkParse3000Documents decodes and builds a 3,000-document stream (a mix of workloads
// with GPUs, Services, ConfigMaps, HPAs and NodePools), as helm template output would be.
func BenchmarkParse3000Documents(b *testing.B) {
	data := corpus.KubernetesStream(3000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res := Parse("stream.yaml", data, Options{})
		if len(res.Errors) > 0 || len(res.Resources) == 0 {
			b.Fatalf("errors %v, %d resources", res.Errors, len(res.Resources))
		}
	}
}
