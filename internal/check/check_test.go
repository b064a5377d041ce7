package check

import (
	"strings"
	"testing"
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
