package catalog

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpuguard/gpuguard/profiles"
)

// The GPUs profile capture ran on (scripts/gpu-check/run.sh, testdata/profiles) are named by
// NVML as a capture records them, and their memory is what NVML reported. A measured profile's
// gpu_name must map to the catalog's GPU, and the catalog's reported size, which fit judges
// usable memory by, must be the card's.
func TestCapturedGPUsMatchTheCatalog(t *testing.T) {
	c := MustDefault()
	for _, run := range []struct{ file, gpu string }{
		{"h100/full-b4.yaml", "h100-80gb"},
		{"h200/full-b4.yaml", "h200"},
	} {
		p, err := profiles.Load(filepath.Join("..", "..", "testdata", "profiles", run.file))
		if err != nil {
			t.Fatal(err)
		}
		m := p.Measured
		if m == nil {
			t.Fatalf("%s: no measurement", run.file)
		}
		if keys := GPUKeysForName(m.GPUName); !slices.Equal(keys, []string{run.gpu}) {
			t.Errorf("%s: NVML's %q maps to %v, want %s", run.file, m.GPUName, keys, run.gpu)
		}
		g, ok := c.GPU(run.gpu)
		if !ok || int64(g.ReportedMiB) != m.MemoryTotalMiB {
			t.Errorf("%s: catalog %s reports %d MiB, NVML %d", run.file, run.gpu, g.ReportedMiB, m.MemoryTotalMiB)
		}
	}
}
