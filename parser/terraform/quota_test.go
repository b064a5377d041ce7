package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Kubernetes provider's ResourceQuota bounds the configuration's workloads in its namespace,
// as a manifest's does: a scope selector's NotBestEffort is read from its match_expression
// blocks, and a quota of another namespace bounds nothing.
func TestTypedResourceQuota(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "terraform", "k8s_resource_quota", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, from, to string
		max            int
	}{
		{"capped", "", "", 4},
		{"another namespace", `namespace = "ml" # quota`, `namespace = "other"`, 30},
		{"a scope it cannot tell", `scope_name = "NotBestEffort"`, `scope_name = "Terminating"`, 30},
	} {
		res := ParseSource("main.tf", []byte(strings.Replace(string(src), c.from, c.to, 1)), Options{})
		if len(res.Errors) > 0 {
			t.Fatalf("%s: errors %v", c.name, res.Errors)
		}
		r := byAddress(t, res)["kubernetes_deployment_v1.serve"]
		if r.ScaleMax == nil || r.ScaleMax.Quantity != c.max {
			t.Errorf("%s: scale max %+v, want %d", c.name, r.ScaleMax, c.max)
		}
		if capped := strings.Contains(r.ScaleMax.From, "capped by ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 4)"); capped != (c.max == 4) {
			t.Errorf("%s: from %q", c.name, r.ScaleMax.From)
		}
	}
}
