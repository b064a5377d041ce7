package scan

import (
	"fmt"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
)

// BenchmarkScanGitOpsCharts scans a repository of 40 charts, each of 8 GPU Deployments and
// each rendered by an Argo CD Application with its own values: the charts are rendered once,
// by their Applications, not also with their default values.
func BenchmarkScanGitOpsCharts(b *testing.B) {
	root := b.TempDir()
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
	for i := range 40 {
		dir := fmt.Sprintf("charts/c%d", i)
		files[dir+"/Chart.yaml"] = fmt.Sprintf("apiVersion: v2\nname: c%d\nversion: 0.1.0\n", i)
		files[dir+"/values.yaml"] = "replicas: 1\nitems: [a, b, c, d, e, f, g, h]\n"
		files[dir+"/templates/d.yaml"] = "{{- range .Values.items }}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: '{{ $.Release.Name }}-{{ . }}'}\nspec:\n  replicas: {{ $.Values.replicas }}\n" +
			"  template:\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n{{- end }}\n"
		files[fmt.Sprintf("apps/a%d.yaml", i)] = app(fmt.Sprintf("web-%d", i), dir, "parameters: [{name: replicas, value: '2'}]")
	}
	testutil.WriteFiles(b, root, files)
	b.ReportAllocs()
	for b.Loop() {
		res := Scan([]string{root}, Options{})
		if len(res.Resources) != 40*8 {
			b.Fatalf("%d resources, want %d", len(res.Resources), 40*8)
		}
	}
}
