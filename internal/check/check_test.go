package check

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/config"
)

func TestMatchGlob(t *testing.T) {
	m := map[string]string{
		"aws_instance.train":                   "instances",
		"Deployment/ml/*":                      "ml",
		"Deployment/ml/vllm-*":                 "vllm",
		"module.*.aws_instance.x":              "modules",
		"live/prod/*|aws_eks_node_group.gpu":   "prod units",
		"live/*/training|aws_eks_node_group.*": "training units",
	}
	cases := map[string]string{
		"aws_instance.train[0]":          "instances",
		`aws_instance.train["a"]`:        "instances",
		"aws_instance.training":          "",
		"Deployment/ml/vllm-llama":       "vllm",
		"Deployment/ml/other":            "ml",
		"Deployment/prod/vllm-llama":     "",
		"module.gpu.aws_instance.x":      "modules",
		`module.gpu.aws_instance.x["k"]`: "modules",
	}
	for addr, want := range cases {
		_, got, _ := matchGlob("stacks/a", addr, m)
		if got != want {
			t.Errorf("%s: %q, want %q", addr, got, want)
		}
	}
	// By id: the longest pattern wins, and a root outside every id pattern falls back to none.
	for id, want := range map[string]string{
		"live/prod/training|aws_eks_node_group.gpu": "training units", // both match: the longer wins
		"live/prod/serve|aws_eks_node_group.gpu":    "prod units",
		"live/dev/training|aws_eks_node_group.gpu":  "training units",
		"live/dev/batch|aws_eks_node_group.gpu":     "",
		"live/prod/batch|aws_eks_node_group.cpu":    "",
	} {
		root, addr, _ := strings.Cut(id, "|")
		_, got, _ := matchGlob(root, addr, m)
		if got != want {
			t.Errorf("%s: %q, want %q", addr, got, want)
		}
	}
}

// Hours a month: the config's usage sets them where the manifest says nothing, and where a Job's
// deadline only bounds one run (a deadline past the month bounds nothing); the annotation wins
// over both; a Job with none runs all month.
func TestUsageHours(t *testing.T) {
	dir := t.TempDir()
	job := func(name, extra string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + name + "\n  namespace: ml\n" + extra + "spec:\n  activeDeadlineSeconds: 7200\n  template:\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n---\n"
	}
	manifests := job("bounded", "") + job("rerun", "") + job("annotated", "  annotations: {gpuguard.dev/hours-per-month: '10'}\n") +
		strings.Replace(job("unbounded", ""), "  activeDeadlineSeconds: 7200\n", "", 1) +
		strings.Replace(job("long", ""), "7200", "3600000", 1) // 1,000 hours: no more than the month
	if err := os.WriteFile(filepath.Join(dir, "jobs.yaml"), []byte(manifests), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Region: "us-east-1", Usage: map[string]config.Usage{"Job/ml/rerun": {HoursPerMonth: 40}, "Job/ml/annotated": {HoursPerMonth: 50}}}
	doc := Run([]string{dir}, Options{Config: cfg, Catalog: cat})
	got := map[string]float64{}
	for _, r := range doc.Resources {
		got[r.Address] = r.HoursPerMonth
		if r.Address == "Job/ml/long" && !strings.Contains(strings.Join(r.Notes, "\n"), "its deadline (1000.00 hours) is longer than the month") {
			t.Errorf("notes %q do not say the deadline is longer than the month", r.Notes)
		}
	}
	want := map[string]float64{"Job/ml/bounded": 2, "Job/ml/rerun": 40, "Job/ml/annotated": 10, "Job/ml/unbounded": 730, "Job/ml/long": 730}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hours %v, want %v (errors %v)", got, want, doc.Errors)
	}
}
