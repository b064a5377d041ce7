package scan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadKustomization feeds arbitrary kustomization files to the reader that decides which
// files are patches: never a panic; every patch path it returns is a cleaned path.
func FuzzReadKustomization(f *testing.F) {
	f.Add([]byte("resources: [../../base]\npatches:\n  - path: gpu.yaml\n  - patch: |-\n      - op: add\npatchesStrategicMerge: [a.yaml]\nreplicas: [{name: x, count: 2}]\n"))
	f.Add([]byte("patchesJson6902: [{path: p.yaml, target: {kind: Deployment}}]\n"))
	f.Add([]byte("patches: 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		patches, warn := readKustomization(filepath.Join(dir, "kustomization.yaml"))
		for _, p := range patches {
			if p != filepath.Clean(p) || strings.Contains(p, "\n") {
				t.Fatalf("patch path %q", p)
			}
		}
		if len(patches) > 0 && warn == nil {
			t.Fatal("patches without the overlay's warning")
		}
	})
}
