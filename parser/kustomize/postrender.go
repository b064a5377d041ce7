package kustomize

import (
	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// postRenderer is what gpuguard reads of a Flux HelmRelease's spec.postRenderers[].kustomize.
// https://fluxcd.io/flux/components/helm/helmreleases/#post-renderers
type postRenderer struct {
	Patches []struct {
		Patch  yaml.Node `yaml:"patch"`
		Target *target   `yaml:"target"`
	} `yaml:"patches"`
	PatchesStrategicMerge []yaml.Node `yaml:"patchesStrategicMerge"`
	PatchesJSON6902       []struct {
		Patch  yaml.Node `yaml:"patch"`
		Target *target   `yaml:"target"`
	} `yaml:"patchesJson6902"`
}

// DecodeObjects reads the objects of a YAML stream (a chart's rendered template), each at the
// lines of the stream and of file.
func DecodeObjects(file string, data []byte) ([]Object, error) {
	docs, err := decodeAll(data)
	var out []Object
	for _, d := range docs {
		if d.Kind == yaml.MappingNode {
			out = append(out, Object{Node: d, File: file})
		}
	}
	return out, err
}

// PostRender applies a Flux HelmRelease's kustomize post renderer (spec, one of
// spec.postRenderers[].kustomize in file, its nodes at that file's lines) to the objects the
// chart rendered, in place, as kustomize applies a kustomization's patches: patchesStrategicMerge,
// then patches (strategic merge or JSON 6902, by target or by kind and name), then
// patchesJson6902. Images do not change GPU spend and are not applied. A patch that matches no
// object is a warning; a broken one an error at its line.
func PostRender(file string, spec *yaml.Node, objs []Object) (errs, warns []parser.Error) {
	b := &builder{files: map[string]bool{}, scope: "the chart's objects"}
	var pr postRenderer
	if err := spec.Decode(&pr); err != nil {
		b.errorf(file, spec.Line, "postRenderers kustomize: %v", err)
		return b.errs, b.warns
	}
	var patches []patch
	for i := range pr.PatchesStrategicMerge {
		d := &pr.PatchesStrategicMerge[i]
		patches = append(patches, patch{file: file, line: d.Line, doc: d})
	}
	for _, p := range pr.Patches {
		docs, err := decodeAll([]byte(p.Patch.Value))
		if err != nil || len(docs) == 0 || p.Patch.Kind != yaml.ScalarNode {
			b.errorf(file, p.Patch.Line, "postRenderers kustomize: inline patch: invalid YAML: %v", err)
			continue
		}
		for _, d := range docs {
			patches = append(patches, patch{file: file, line: p.Patch.Line, doc: d, json: d.Kind == yaml.SequenceNode, target: p.Target})
		}
	}
	for i := range pr.PatchesJSON6902 {
		p := &pr.PatchesJSON6902[i]
		if p.Patch.Kind != yaml.SequenceNode {
			b.errorf(file, p.Patch.Line, "postRenderers kustomize: patchesJson6902: patch is not a list of operations")
			continue
		}
		patches = append(patches, patch{file: file, line: p.Patch.Line, doc: &p.Patch, json: true, target: p.Target})
	}
	for _, p := range patches {
		b.apply(p, objs)
	}
	return b.errs, b.warns
}
