package scan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadKustomization feeds arbitrary kustomization files to the reader that decides which
// files are patches and which directories are bases: never a panic; every path it returns is a
// cleaned path.
func FuzzReadKustomization(f *testing.F) {
	f.Add([]byte("resources: [../../base]\npatches:\n  - path: gpu.yaml\n  - patch: |-\n      - op: add\npatchesStrategicMerge: [a.yaml]\nreplicas: [{name: x, count: 2}]\n"))
	f.Add([]byte("patchesJson6902: [{path: p.yaml, target: {kind: Deployment}}]\n"))
	f.Add([]byte("patches: 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		refs := readKustomization(filepath.Join(dir, "kustomization.yaml"))
		for _, p := range append(refs.patches, refs.dirs...) {
			if p != filepath.Clean(p) || strings.Contains(p, "\n") {
				t.Fatalf("path %q", p)
			}
		}
	})
}
