package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A helm_release whose chart cannot be rendered says why at the release's line: a chart outside
// the checked directories, a directory that is not a chart, values that are not YAML. A remote
// chart is a warning only when its values ask for GPUs.
func TestHelmReleaseProblems(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "notachart"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ body, want string }{
		{`chart = "/etc"`, "outside"},
		{`chart = "./notachart"`, "is not a Helm chart (no Chart.yaml)"},
		{"chart = \"./notachart\"\n  values = [\"a: [\"]", "values[0]"},
		{"repository = \"https://charts.example.com\"\n  chart = \"x\"\n  set {\n    name = \"resources.limits.nvidia\\\\.com/gpu\"\n    value = \"1\"\n  }", "comes from https://charts.example.com, which gpuguard does not download"},
		{"repository = \"https://charts.example.com\"\n  chart = \"ingress\"", ""},
		{`chart = "bitnami/nginx"`, ""}, // a chart of a repository helm repo add knows
		{"chart = \"oci://registry.example.com/charts/llm\"\n  values = [\"resources: {limits: {nvidia.com/gpu: 1}}\"]", "comes from its repository"},
	}
	for _, tc := range cases {
		src := "resource \"helm_release\" \"r\" {\n  name = \"r\"\n  " + tc.body + "\n}\n"
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		res := ParseModuleDir(dir, Options{FileDirs: []string{dir}})
		var msgs []string
		for _, e := range append(res.Errors, res.Warnings...) {
			msgs = append(msgs, e.Message)
		}
		got := strings.Join(msgs, "|")
		if tc.want == "" && got != "" || tc.want != "" && (!strings.Contains(got, tc.want) || len(res.Resources) != 0) {
			t.Errorf("%s: %q, resources %d", tc.body, got, len(res.Resources))
		}
	}
}
