package helm

import (
	"path/filepath"
	"testing"

	"github.com/gpuguard/gpuguard/internal/confine"
)

// BenchmarkRenderCreatedChart renders the chart `helm create` writes (testdata/created): six
// templates and their helpers, as a scan renders each chart it meets.
func BenchmarkRenderCreatedChart(b *testing.B) {
	links := confine.NewDirs("testdata")
	dir := filepath.Join("testdata", "created")
	b.ReportAllocs()
	for b.Loop() {
		out, err := Render(dir, links)
		if err != nil || len(out) != 5 {
			b.Fatalf("%d templates, %v", len(out), err)
		}
	}
}
