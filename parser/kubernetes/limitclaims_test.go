package kubernetes

import (
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// A shared ResourceClaim's devices are allocated once for all the pods that name it: against a
// NodePool's GPU limit they count once, not once a pod.
func TestKarpenterLimitCountsSharedClaimsOnce(t *testing.T) {
	src := func(limit, devices string, replicas ...string) string {
		s := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  limits: {nvidia.com/gpu: " + limit + "}\n" +
			"  template: {spec: {requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [g6.12xlarge]}]}}\n" +
			"---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: shared, namespace: ml}\n" +
			"spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com, count: " + devices + "}}]}}\n"
		for i, n := range replicas {
			s += "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d" + string(rune('a'+i)) + ", namespace: ml}\nspec:\n  replicas: " + n + "\n" +
				"  template:\n    spec:\n      nodeSelector: {karpenter.sh/nodepool: gpu}\n" +
				"      resourceClaims: [{name: gpu, resourceClaimName: shared}]\n" +
				"      containers: [{name: c, resources: {claims: [{name: gpu}]}}]\n"
		}
		return s
	}
	for _, c := range []struct {
		name    string
		src     string
		pending string // the warning, "" for none
		shared  bool   // the workloads share the limit in the totals
	}{
		// Five pods on one GPU, within a limit of 2: no pod waits, and nothing is shared past it.
		{"pods of one claim within the limit", src("2", "1", "3", "2"), "", false},
		{"one workload's pods on one claim", src("2", "2", "5"), "", false},
		// The claim's 3 devices alone pass a limit of 2: Karpenter launches no node for it.
		{"the claim past the limit", src("2", "3", "2"), "Deployment/ml/da runs 2 pods, but NodePool/gpu's limits (nvidia.com/gpu: 2) let Karpenter launch nodes for at most 0", false},
	} {
		res := buildWarning(t, c.name, c.src, c.pending)
		for _, r := range res.Resources {
			if (r.SharedLimit != nil) != c.shared {
				t.Errorf("%s: %s shared limit %+v", c.name, r.Address, r.SharedLimit)
			}
		}
	}
}

// LimitGPUs counts each pod's own devices, and a shared claim's once for the limit.
func TestLimitGPUs(t *testing.T) {
	pod := parser.PodGPUs{Requested: 3, SharedClaims: []parser.SharedClaim{{Address: "ResourceClaim/ml/a", GPUs: 2}}}
	counted := map[string]bool{}
	key := func(claim string) string { return "root|" + claim }
	if n := pod.LimitGPUs(4, counted, key); n != 4*1+2 {
		t.Errorf("first: %d, want 6", n)
	}
	if n := pod.LimitGPUs(4, counted, key); n != 4 {
		t.Errorf("the claim counted already: %d, want 4", n)
	}
	if n := pod.LimitGPUs(4, counted, func(claim string) string { return "other|" + claim }); n != 6 {
		t.Errorf("another root's claim: %d, want 6", n)
	}
	// A claim counted for more devices than the pod's request (a floor for allocationMode All)
	// takes no pod's own devices below none.
	under := parser.PodGPUs{Requested: 1, SharedClaims: []parser.SharedClaim{{Address: "ResourceClaim/ml/all", GPUs: 2}}}
	if n := under.LimitGPUs(3, counted, key); n != 2 {
		t.Errorf("claim above the request: %d, want 2", n)
	}
	plain := parser.PodGPUs{Requested: 2}
	if n := plain.LimitGPUs(3, counted, key); n != 6 {
		t.Errorf("no claims: %d, want 6", n)
	}
}
