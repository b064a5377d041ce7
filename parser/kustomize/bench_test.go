package kustomize

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/internal/testutil"
)

// BenchmarkBuildOverlays builds 20 overlays of one base of 50 GPU deployments, each overlay
// with a name prefix, labels, a strategic merge patch, a targeted JSON patch over every
// deployment and replica counts: 1,000 objects built.
func BenchmarkBuildOverlays(b *testing.B) {
	root := b.TempDir()
	write := func(name, text string) { testutil.WriteFiles(b, root, map[string]string{name: text}) }
	var base strings.Builder
	for i := range 50 {
		fmt.Fprintf(&base, "---\n%s", strings.ReplaceAll(deployment, "name: train", fmt.Sprintf("name: train-%d", i)))
	}
	write("base/deploy.yaml", base.String())
	write("base/kustomization.yaml", "resources: [deploy.yaml]\n")
	for o := range 20 {
		write(fmt.Sprintf("overlays/o%d/patch.yaml", o), "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: train-7}\nspec:\n  template:\n    spec:\n      containers: [{name: trainer, resources: {limits: {nvidia.com/gpu: 8}}}]\n")
		write(fmt.Sprintf("overlays/o%d/kustomization.yaml", o), fmt.Sprintf(`resources: [../../base]
namePrefix: o%d-
commonLabels: {env: o%d}
patchesStrategicMerge: [patch.yaml]
patches:
  - target: {kind: Deployment}
    patch: |-
      - {op: add, path: /spec/template/spec/nodeSelector, value: {node.kubernetes.io/instance-type: g6e.xlarge}}
replicas: [{name: train-3, count: 4}]
`, o, o))
	}
	links := confine.NewDirs(root)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for o := range 20 {
			res := Build(filepath.Join(root, "overlays", fmt.Sprintf("o%d", o)), links)
			if len(res.Errors) > 0 {
				b.Fatal(res.Errors)
			}
			n += len(res.Objects)
		}
		if n != 1000 {
			b.Fatalf("%d objects", n)
		}
	}
}
