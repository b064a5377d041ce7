package scan

import (
	"os"
	"path/filepath"
	"slices"
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

// FuzzSourceIgnore feeds arbitrary .sourceignore text and paths to the matcher: never a panic,
// and the last pattern decides: a path taken back by a last "!/path" is not left out, one named
// by a last "/path" is.
func FuzzSourceIgnore(f *testing.F) {
	f.Add("tools/\n!/deploy\n/*\n**/a/**/b\n# c\n", "deploy", "deploy/tools/x.yaml", false)
	f.Add("[\n\\\n!\n/\n**", "", "a/[/b", true)
	f.Fuzz(func(t *testing.T, text, domain, path string, dir bool) {
		if len(text) > 4096 || len(path) > 1024 {
			return
		}
		s := parseIgnore(text, domain)
		s.ignored(path, dir)
		segs := strings.Split(path, "/")
		if path == "" || strings.ContainsAny(path, "*?[\\\n\r\t #!") || slices.Contains(segs, "") || slices.Contains(segs, "**") {
			return
		}
		if parseIgnore(text+"\n!/"+path, "").ignored(path, dir) {
			t.Fatalf("%q with !/%s last leaves %s out", text, path, path)
		}
		if !parseIgnore(text+"\n/"+path, "").ignored(path, dir) {
			t.Fatalf("%q with /%s last keeps %s", text, path, path)
		}
	})
}
