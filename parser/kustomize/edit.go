package kustomize

import (
	"fmt"
	"maps"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/parser"
)

// edits are what an Argo CD Application's spec.source.kustomize changes in the kustomization it
// builds: Argo CD runs `kustomize edit` on that kustomization (set namePrefix, nameSuffix and
// namespace; add labels and annotations, overriding; set replicas; add components) and appends
// its patches to the kustomization's, then builds it.
// https://argo-cd.readthedocs.io/en/stable/user-guide/kustomize/
type edits struct {
	NamePrefix        string            `yaml:"namePrefix"`
	NameSuffix        string            `yaml:"nameSuffix"`
	Namespace         string            `yaml:"namespace"`
	CommonLabels      map[string]string `yaml:"commonLabels"`
	CommonAnnotations map[string]string `yaml:"commonAnnotations"`
	Replicas          []struct {
		Name  string    `yaml:"name"`
		Count yaml.Node `yaml:"count"` // a number, or a string of one
	} `yaml:"replicas"`
	Patches []struct {
		Path   string    `yaml:"path"`
		Patch  yaml.Node `yaml:"patch"`
		Target *target   `yaml:"target"`
	} `yaml:"patches"`
	Components []string `yaml:"components"`
}

// BuildEdited renders the kustomization in dir as an Argo CD Application whose
// spec.source.kustomize is spec (a node of file, at that file's lines) builds it: with the
// Application's settings written into the kustomization first. Settings that are wrong are
// errors at their lines in file, and the kustomization is not built.
func BuildEdited(dir string, links confine.Dirs, file string, spec *yaml.Node) Result {
	b, fail := editedBuilder(links, file, spec)
	if b == nil {
		return fail
	}
	return b.result(dir)
}

// BuildGenerated renders dir, which holds no kustomization file, as Flux renders a
// Kustomization's path there: through the kustomization Flux generates, whose resources are
// those given (manifest files below dir, and the directories below it that hold a
// kustomization, relative to dir), with the Kustomization's settings (spec as in BuildEdited;
// nil for none) written in. file and line (the Flux Kustomization's) are where messages about
// the generated kustomization's entries point. A document of its manifests that is not a
// Kubernetes object is an error: Flux fails to generate the kustomization then.
// https://fluxcd.io/flux/components/kustomize/kustomizations/#generating-a-kustomizationyaml-file
func BuildGenerated(dir string, resources []string, links confine.Dirs, file string, line int, spec *yaml.Node) Result {
	b := &builder{links: links, files: map[string]bool{}}
	if spec != nil {
		var fail Result
		if b, fail = editedBuilder(links, file, spec); b == nil {
			return fail
		}
	}
	k := &Kustomization{Resources: resources, lines: map[string]int{}}
	b.generatedFiles = map[string]bool{}
	for _, r := range resources {
		k.lines[r] = line
		b.generatedFiles[join(filepath.Clean(dir), r)] = true
	}
	b.generated, b.generatedFile = k, file
	return b.result(dir)
}

// editedBuilder is a builder that writes spec's settings into the kustomization it builds, or
// nil and the errors that say why spec is wrong.
func editedBuilder(links confine.Dirs, file string, spec *yaml.Node) (*builder, Result) {
	var e edits
	fail := func(line int, format string, args ...any) (*builder, Result) {
		return nil, Result{Errors: []parser.Error{{File: file, Line: line, Message: fmt.Sprintf(format, args...)}}}
	}
	if err := spec.Decode(&e); err != nil {
		return fail(spec.Line, "spec.source.kustomize: %v", err)
	}
	counts := make([]int, len(e.Replicas))
	for i, r := range e.Replicas {
		n, err := strconv.Atoi(strings.TrimSpace(r.Count.Value))
		if err != nil || r.Count.Kind != yaml.ScalarNode || n < 0 {
			return fail(r.Count.Line, "spec.source.kustomize.replicas[%d]: count %q is not a number of replicas", i, r.Count.Value)
		}
		counts[i] = n
	}
	var patches []patchRef
	for i, p := range e.Patches {
		if p.Patch.Kind != 0 && p.Patch.Kind != yaml.ScalarNode {
			return fail(p.Patch.Line, "spec.source.kustomize.patches[%d]: patch is not text", i)
		}
		line := p.Patch.Line
		if line == 0 {
			line = spec.Line
		}
		patches = append(patches, patchRef{Path: p.Path, Patch: p.Patch.Value, Target: p.Target, file: file, line: line})
	}
	b := &builder{links: links, files: map[string]bool{}, edit: func(k *Kustomization) {
		if e.NamePrefix != "" {
			k.NamePrefix = e.NamePrefix
		}
		if e.NameSuffix != "" {
			k.NameSuffix = e.NameSuffix
		}
		if e.Namespace != "" {
			k.Namespace = e.Namespace
		}
		// k is this build's own reading of the file: its maps may be written.
		k.CommonLabels = setPairs(k.CommonLabels, e.CommonLabels)
		k.CommonAnnotations = setPairs(k.CommonAnnotations, e.CommonAnnotations)
		for i, r := range e.Replicas {
			set := false
			for j := range k.Replicas {
				if k.Replicas[j].Name == r.Name {
					k.Replicas[j].Count, set = counts[i], true
				}
			}
			if !set {
				k.Replicas = append(k.Replicas, replicaCount{Name: r.Name, Count: counts[i]})
			}
		}
		for _, c := range e.Components {
			k.Components = append(k.Components, filepath.ToSlash(c))
		}
		k.Patches = append(k.Patches, patches...)
	}}
	return b, Result{}
}

// setPairs sets pairs in m (made when nil and there are some) and returns it.
func setPairs(m, pairs map[string]string) map[string]string {
	if m == nil && len(pairs) > 0 {
		m = map[string]string{}
	}
	maps.Copy(m, pairs)
	return m
}
