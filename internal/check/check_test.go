package check

import "testing"

func TestMatchGlob(t *testing.T) {
	m := map[string]string{
		"aws_instance.train":      "instances",
		"Deployment/ml/*":         "ml",
		"Deployment/ml/vllm-*":    "vllm",
		"module.*.aws_instance.x": "modules",
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
		_, got, _ := matchGlob(addr, m)
		if got != want {
			t.Errorf("%s: %q, want %q", addr, got, want)
		}
	}
}
