package scan

import (
	"os"
	"path/filepath"

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
	k, err := kustomize.Parse(data)
	if err != nil {
		return refs
	}
	patches, resources := k.Refs(filepath.Dir(path))
	refs.patches = patches
	for _, r := range resources {
		if info, err := os.Stat(r); err == nil && info.IsDir() {
			refs.dirs = append(refs.dirs, r)
		}
	}
	return refs
}
