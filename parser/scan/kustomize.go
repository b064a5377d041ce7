package scan

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// kustomizationNames are the file names kustomize looks for in a directory.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// kustomization is the part of a kustomization file that decides what gpuguard can count
// without running kustomize: its patches are fragments of objects, not objects, and with its
// replica counts they change what the overlay deploys.
type kustomization struct {
	PatchesStrategicMerge []string `yaml:"patchesStrategicMerge"`
	Patches               []struct {
		Path string `yaml:"path"`
	} `yaml:"patches"`
	PatchesJSON6902 []struct {
		Path string `yaml:"path"`
	} `yaml:"patchesJson6902"`
	Replicas []struct {
		Name string `yaml:"name"`
	} `yaml:"replicas"`
}

// maxKustomization bounds the kustomization file read.
const maxKustomization = 1 << 20

// isKustomization reports whether a file name is one kustomize reads as a directory's
// kustomization.
func isKustomization(name string) bool {
	for _, n := range kustomizationNames {
		if name == n {
			return true
		}
	}
	return false
}

// readKustomization reads the kustomization file at path. It returns the patch files it names
// (cleaned paths, to leave out of the manifests: a patch is a fragment that would otherwise be
// counted as a workload of its own) and a warning when the overlay changes what it deploys
// (patches or replica counts) — gpuguard does not build overlays.
func readKustomization(path string) (patches []string, warn *parser.Error) {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxKustomization {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil
	}
	dir, name := filepath.Dir(path), path
	var k kustomization
	// A kustomization gpuguard cannot read is kustomize's to report; its files are then read
	// as they are.
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&k); err != nil {
		return nil, nil
	}
	add := func(p string) {
		if p == "" || strings.Contains(p, "\n") || strings.Contains(p, "://") {
			return // an inline patch or a remote one
		}
		patches = append(patches, filepath.Clean(filepath.Join(dir, filepath.FromSlash(p))))
	}
	for _, p := range k.PatchesStrategicMerge {
		add(p)
	}
	for _, p := range k.Patches {
		add(p.Path)
	}
	for _, p := range k.PatchesJSON6902 {
		add(p.Path)
	}
	if len(k.PatchesStrategicMerge)+len(k.Patches)+len(k.PatchesJSON6902)+len(k.Replicas) > 0 {
		warn = &parser.Error{File: name, Message: "a kustomize overlay: its patches and replica counts are not applied, so the objects it changes are counted as their bases declare them; check `kustomize build " +
			filepath.ToSlash(dir) + " | gpuguard check -` for what it deploys"}
	}
	return patches, warn
}
