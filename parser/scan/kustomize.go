package scan

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser/kustomize"
)

// maxKustomization bounds the kustomization file read.
const maxKustomization = 1 << 20

// kustomizationRefs is what discovery needs of a kustomization file: the patch files it names
// (fragments of objects, never manifests of their own) and the directories its resources,
// bases and components name (kustomizations it builds on, which are then not built on their
// own).
type kustomizationRefs struct {
	patches []string
	dirs    []string
}

// readKustomization reads the kustomization file at path. A file it cannot read is
// kustomize's (and the build's) to report; nothing is listed then.
func readKustomization(path string) kustomizationRefs {
	var refs kustomizationRefs
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxKustomization {
		return refs
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return refs
	}
	var k kustomize.Kustomization
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&k); err != nil {
		return refs
	}
	dir := filepath.Dir(path)
	local := func(p string) (string, bool) {
		if p == "" || strings.Contains(p, "\n") || kustomize.IsRemote(p) {
			return "", false // an inline patch or a remote one
		}
		p = filepath.FromSlash(p)
		if filepath.IsAbs(p) {
			return filepath.Clean(p), true
		}
		return filepath.Clean(filepath.Join(dir, p)), true
	}
	for _, p := range k.PatchesStrategicMerge {
		if f, ok := local(p); ok {
			refs.patches = append(refs.patches, f)
		}
	}
	for _, p := range append(k.Patches, k.PatchesJSON6902...) {
		if f, ok := local(p.Path); ok {
			refs.patches = append(refs.patches, f)
		}
	}
	for _, r := range append(append(append([]string{}, k.Resources...), k.Bases...), k.Components...) {
		if d, ok := local(r); ok {
			if info, err := os.Stat(d); err == nil && info.IsDir() {
				refs.dirs = append(refs.dirs, d)
			}
		}
	}
	return refs
}
