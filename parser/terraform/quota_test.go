package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The Kubernetes provider's ResourceQuota bounds the configuration's workloads in its namespace,
// as a manifest's does: a scope selector's PriorityClass is read from its match_expression
// blocks and tested against the pod's priority_class_name, else the global default of the
// provider's PriorityClass; a quota of another namespace bounds nothing.
func TestTypedResourceQuota(t *testing.T) {
	src := quotaFixture(t)
	for _, c := range []struct {
		name, from, to string
		max            int
	}{
		{"capped", "", "", 4},
		{"another namespace", `namespace = "ml" # quota`, `namespace = "other"`, 30},
		{"a class the scope does not name", `values     = ["serving", "interactive"]`, `values     = ["batch"]`, 30},
		{"no global default", `global_default = true`, `global_default = false`, 30},
		{"a class of the pod's own", `# priority class`, `priority_class_name = "batch"`, 30},
		{"a class of the pod's own that the scope names", `# priority class`, `priority_class_name = "interactive"`, 4},
		{"a scope the pods do not match", "scope_selector {", "scopes = [\"CrossNamespacePodAffinity\"]\n    scope_selector {", 30},
	} {
		res := ParseSource("main.tf", []byte(strings.Replace(string(src), c.from, c.to, 1)), Options{})
		if len(res.Errors) > 0 {
			t.Fatalf("%s: errors %v", c.name, res.Errors)
		}
		r := byAddress(t, res)["kubernetes_deployment_v1.serve"]
		if r.ScaleMax == nil || r.ScaleMax.Quantity != c.max {
			t.Errorf("%s: scale max %+v, want %d", c.name, r.ScaleMax, c.max)
		}
		if capped := strings.Contains(r.ScaleMax.From, "capped by ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 4; scope PriorityClass In [serving, interactive])"); capped != (c.max == 4) {
			t.Errorf("%s: from %q", c.name, r.ScaleMax.From)
		}
	}
}

// A pod affinity's terms, which the provider writes as blocks (one is read as a list of one),
// match a quota's CrossNamespacePodAffinity scope when they name namespaces.
func TestTypedResourceQuotaCrossNamespaceAffinity(t *testing.T) {
	src := strings.Replace(string(quotaFixture(t)), "scope_selector {", "scopes = [\"CrossNamespacePodAffinity\"]\n    scope_selector {", 1)
	crossNS := "affinity {\n pod_anti_affinity {\n required_during_scheduling_ignored_during_execution {\n" +
		" topology_key = \"kubernetes.io/hostname\"\n namespaces = [\"cache\"]\n }\n }\n }"
	res := ParseSource("main.tf", []byte(strings.Replace(src, "# priority class", crossNS, 1)), Options{})
	if r := byAddress(t, res)["kubernetes_deployment_v1.serve"]; len(res.Errors) > 0 || r.ScaleMax == nil || r.ScaleMax.Quantity != 4 {
		t.Errorf("errors %v, scale max %+v", res.Errors, r.ScaleMax)
	}
}

func quotaFixture(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "terraform", "k8s_resource_quota", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	return src
}
