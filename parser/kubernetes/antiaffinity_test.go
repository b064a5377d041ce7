package kubernetes

import (
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// A required pod anti-affinity on kubernetes.io/hostname that selects the workload's own pods
// keeps them one to a node; one by zone, a preferred one, or one that selects other pods (by
// label or namespace) does not, nor any when the workload runs one pod.
func TestOnePerNode(t *testing.T) {
	deployment := func(kind, affinity string) string { return affinityWorkload(kind, "2", podAntiAffinityField, affinity) }
	required := requiredTerms
	for _, c := range []struct {
		name, src string
		want      string // "" when the pods may share nodes
	}{
		{"matchLabels", deployment("Deployment", required("{labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}")),
			"its required podAntiAffinity (topologyKey kubernetes.io/hostname, line 13) selects its own pods"},
		{"matchExpressions", deployment("Deployment", required("{labelSelector: {matchExpressions: [{key: tier, operator: In, values: [gpu, cpu]}]}, topologyKey: kubernetes.io/hostname}")), "line 13"},
		{"an empty selector matches every pod", deployment("Deployment", required("{labelSelector: {}, topologyKey: kubernetes.io/hostname}")), "line 13"},
		{"its own namespace named", deployment("Deployment", required("{labelSelector: {matchLabels: {app: a}}, namespaces: [ml, web], topologyKey: kubernetes.io/hostname}")), "line 13"},
		{"every namespace", deployment("Deployment", required("{labelSelector: {matchLabels: {app: a}}, namespaceSelector: {}, topologyKey: kubernetes.io/hostname}")), "line 13"},
		{"a block of the Terraform provider", deployment("Deployment", required("{labelSelector: [{matchLabels: {app: a}}], topologyKey: kubernetes.io/hostname}")), "line 13"},
		{"the second term", deployment("Deployment", required("{labelSelector: {matchLabels: {app: b}}, topologyKey: kubernetes.io/hostname}\n          - {labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}")), "line 14"},
		{"by zone", deployment("Deployment", required("{labelSelector: {matchLabels: {app: a}}, topologyKey: topology.kubernetes.io/zone}")), ""},
		{"other pods", deployment("Deployment", required("{labelSelector: {matchLabels: {app: b}}, topologyKey: kubernetes.io/hostname}")), ""},
		{"another namespace", deployment("Deployment", required("{labelSelector: {matchLabels: {app: a}}, namespaces: [web], topologyKey: kubernetes.io/hostname}")), ""},
		{"namespaces by label", deployment("Deployment", required("{labelSelector: {matchLabels: {app: a}}, namespaceSelector: {matchLabels: {team: x}}, topologyKey: kubernetes.io/hostname}")), ""},
		{"no selector", deployment("Deployment", required("{topologyKey: kubernetes.io/hostname}")), ""},
		{"preferred", deployment("Deployment", "          preferredDuringSchedulingIgnoredDuringExecution:\n          - {weight: 100, podAffinityTerm: {labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}}\n"), ""},
		{"a lone pod shares its node as any pod does", strings.Replace(deployment("Deployment", required("{labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}")), "replicas: 2", "replicas: 1", 1), ""},
		{"a DaemonSet, one to a node anyway", strings.Replace(deployment("DaemonSet", required("{labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}")), "  replicas: 2\n", "", 1), ""},
	} {
		r := one(t, buildWarning(t, c.name, c.src, ""))
		if got := oneToANode(t, r.Pod); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: one per node %q, want %q", c.name, got, c.want)
		}
	}
}

// affinityWorkload is a workload of kind with replicas pods (labels app: a, tier: gpu) of one
// GPU on a g6.12xlarge, whose affinity's field (podAffinity or podAntiAffinity) holds terms;
// its first term is on line 13.
func affinityWorkload(kind, replicas, field, terms string) string {
	return "apiVersion: apps/v1\nkind: " + kind + "\nmetadata: {name: a, namespace: ml}\nspec:\n  replicas: " + replicas + "\n  template:\n" +
		"    metadata: {labels: {app: a, tier: gpu}}\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g6.12xlarge}\n" +
		"      affinity:\n        " + field + ":\n" + terms +
		"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
}

// requiredTerms is a required term list of an affinity field holding term.
func requiredTerms(term string) string {
	return "          requiredDuringSchedulingIgnoredDuringExecution:\n          - " + term + "\n"
}

// oneToANode is why no two of a workload's pods share a node ("" when they may), failing the
// test when a cap other than one is set.
func oneToANode(t *testing.T, p *parser.PodGPUs) string {
	t.Helper()
	if p.MaxPerNode != 0 && p.MaxPerNode != 1 || (p.MaxPerNode == 0) != (p.MaxPerNodeWhy == "") {
		t.Errorf("at most %d pods a node: %q", p.MaxPerNode, p.MaxPerNodeWhy)
	}
	return p.MaxPerNodeWhy
}
