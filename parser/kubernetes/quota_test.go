package kubernetes

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// quotaSrc is a ResourceQuota of namespace ml (spec as given) and Deployments, each "ns/name
// replicas gpus max" (max 0: no HPA).
func quotaSrc(spec string, deployments ...string) string {
	s := "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: gpus, namespace: ml}\nspec:\n" + spec
	for _, d := range deployments {
		var ns, name string
		var replicas, gpus, maxReplicas int
		if _, err := fmt.Sscanf(strings.Replace(d, "/", " ", 1), "%s %s %d %d %d", &ns, &name, &replicas, &gpus, &maxReplicas); err != nil {
			panic(err)
		}
		s += fmt.Sprintf("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s, namespace: %s}\nspec:\n  replicas: %d\n"+
			"  template:\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g6.12xlarge}\n"+
			"      containers: [{name: c, resources: {requests: {cpu: \"1\"}, limits: {nvidia.com/gpu: %d}}}]\n", name, ns, replicas, gpus)
		if maxReplicas > 0 {
			s += fmt.Sprintf("---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: %s, namespace: %s}\n"+
				"spec: {scaleTargetRef: {kind: Deployment, name: %s}, minReplicas: %d, maxReplicas: %d}\n", name, ns, name, replicas, maxReplicas)
		}
	}
	return s
}

// A namespace's ResourceQuota on a GPU resource bounds its workloads: none is priced past it at
// full scale-out, the maximums together are counted within it, and floors it does not admit are
// warnings.
func TestResourceQuotaBoundsGPUWorkloads(t *testing.T) {
	gpus4 := "  hard: {requests.nvidia.com/gpu: \"4\", requests.cpu: \"100\"}\n"
	hpa := func(name string) string { return "maxReplicas of HorizontalPodAutoscaler/ml/" + name }
	capped := ", capped by ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 4)"
	for _, c := range []struct {
		name   string
		src    string
		max    map[string]*parser.ScaleMax // by address
		shared bool                        // the quota is the workloads' shared limit
		warn   string                      // "" for none
	}{
		{"maximums capped and counted together", quotaSrc(gpus4, "ml/a 2 1 20", "ml/b 1 2 5"),
			map[string]*parser.ScaleMax{"Deployment/ml/a": {Quantity: 4, From: hpa("a") + capped}, "Deployment/ml/b": {Quantity: 2, From: hpa("b") + capped}}, true, ""},
		{"within the quota", quotaSrc(gpus4, "ml/a 1 1 2", "ml/b 1 1 2"),
			map[string]*parser.ScaleMax{"Deployment/ml/a": {Quantity: 2, From: hpa("a")}, "Deployment/ml/b": {Quantity: 2, From: hpa("b")}}, false, ""},
		{"a floor past it alone", quotaSrc(gpus4, "ml/a 3 2 10"), map[string]*parser.ScaleMax{"Deployment/ml/a": nil}, false,
			"Deployment/ml/a runs 3 pods of 2 nvidia.com/gpu each, but ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 4) admits 2: the API server refuses the others"},
		{"floors past it together", quotaSrc(gpus4, "ml/a 3 1 0", "ml/b 1 2 0"), map[string]*parser.ScaleMax{"Deployment/ml/a": nil, "Deployment/ml/b": nil}, true,
			"Deployment/ml/a and Deployment/ml/b request 5 nvidia.com/gpu at their floors together, but ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 4) admits 4 in namespace ml"},
		{"another namespace's workloads", quotaSrc(gpus4, "default/a 3 2 10"),
			map[string]*parser.ScaleMax{"Deployment/default/a": {Quantity: 10, From: "maxReplicas of HorizontalPodAutoscaler/default/a"}}, false, ""},
		{"a quota on another resource", quotaSrc("  hard: {requests.amd.com/gpu: \"1\"}\n", "ml/a 3 2 10"),
			map[string]*parser.ScaleMax{"Deployment/ml/a": {Quantity: 10, From: hpa("a")}}, false, ""},
		{"NotBestEffort counts pods that request CPU", quotaSrc("  scopes: [NotBestEffort]\n"+gpus4, "ml/a 3 2 0"), map[string]*parser.ScaleMax{"Deployment/ml/a": nil}, false,
			"admits 2: the API server refuses the others"},
		{"NotBestEffort leaves out pods that request no CPU or memory",
			strings.Replace(quotaSrc("  scopes: [NotBestEffort]\n"+gpus4, "ml/a 3 2 10"), "requests: {cpu: \"1\"}, ", "", 1),
			map[string]*parser.ScaleMax{"Deployment/ml/a": {Quantity: 10, From: hpa("a")}}, false, ""},
		{"a scope selector's NotBestEffort", quotaSrc("  scopeSelector: {matchExpressions: [{scopeName: NotBestEffort, operator: Exists}]}\n"+gpus4, "ml/a 3 2 0"),
			map[string]*parser.ScaleMax{"Deployment/ml/a": nil}, false, "admits 2: the API server refuses the others"},
		{"and its absence, not read", quotaSrc("  scopeSelector: {matchExpressions: [{scopeName: NotBestEffort, operator: DoesNotExist}]}\n"+gpus4, "ml/a 3 2 0"),
			map[string]*parser.ScaleMax{"Deployment/ml/a": nil}, false, ""},
		{"pods whose GPUs come through DRA claims", "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: one, namespace: ml}\n" +
			"spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}}\n---\n" +
			strings.Replace(quotaSrc(gpus4, "ml/a 5 1 0"), "containers: [{name: c, resources: {requests: {cpu: \"1\"}, limits: {nvidia.com/gpu: 1}}}]",
				"resourceClaims: [{name: gpu, resourceClaimTemplateName: one}]\n      containers: [{name: c, resources: {claims: [{name: gpu}]}}]", 1),
			map[string]*parser.ScaleMax{"Deployment/ml/a": nil}, false, ""},
		{"a scope gpuguard cannot tell is not applied", quotaSrc("  scopes: [Terminating]\n"+gpus4, "ml/a 3 2 10"),
			map[string]*parser.ScaleMax{"Deployment/ml/a": {Quantity: 10, From: hpa("a")}}, false, ""},
		{"nor a priority class's", quotaSrc("  scopeSelector: {matchExpressions: [{scopeName: PriorityClass, operator: In, values: [high]}]}\n"+gpus4, "ml/a 3 2 10"),
			map[string]*parser.ScaleMax{"Deployment/ml/a": {Quantity: 10, From: hpa("a")}}, false, ""},
	} {
		res := buildWarning(t, c.name, c.src, c.warn)
		if len(res.Resources) != len(c.max) {
			t.Fatalf("%s: %d resources", c.name, len(res.Resources))
		}
		for _, r := range res.Resources {
			want, ok := c.max[r.Address]
			if !ok || !reflect.DeepEqual(r.ScaleMax, want) {
				t.Errorf("%s: %s scale max %+v, want %+v", c.name, r.Address, r.ScaleMax, want)
			}
			l := r.SharedLimit
			if (l != nil) != c.shared || l != nil && (l.Owner != "ResourceQuota/ml/gpus" || l.Limit != 4 || l.Unit != "nvidia.com/gpu" ||
				l.PerInstance != float64(r.Pod.Requested) || !l.Admission) {
				t.Errorf("%s: %s shared limit %+v", c.name, r.Address, l)
			}
		}
	}
}

// A quota that is not a mapping of quantities is an error at its line; the workloads are read.
func TestResourceQuotaErrors(t *testing.T) {
	res := build(t, quotaSrc("  hard: {requests.nvidia.com/gpu: lots}\n", "ml/a 1 1 0"), Options{})
	if len(res.Errors) != 1 || res.Errors[0].Line != 5 || !strings.Contains(res.Errors[0].Message, "ResourceQuota/ml/gpus: hard: requests.nvidia.com/gpu") {
		t.Errorf("errors %v", res.Errors)
	}
	if len(res.Resources) != 1 {
		t.Errorf("%d resources", len(res.Resources))
	}
}

// Workloads that share a NodePool's limit and a quota are counted within the pool's in the
// totals (one shared limit each); a note says the quota bounds them too.
func TestResourceQuotaBesideANodePoolLimit(t *testing.T) {
	pool := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  limits: {nvidia.com/gpu: 4}\n" +
		"  template: {spec: {requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [g6.12xlarge]}]}}\n---\n"
	src := pool + strings.ReplaceAll(quotaSrc("  hard: {requests.nvidia.com/gpu: \"6\"}\n", "ml/a 1 1 10", "ml/b 1 1 10"),
		"nodeSelector: {node.kubernetes.io/instance-type: g6.12xlarge}", "nodeSelector: {karpenter.sh/nodepool: gpu}")
	res := build(t, src, Options{})
	if len(res.Errors) > 0 || len(res.Resources) != 2 {
		t.Fatalf("errors %v, %d resources", res.Errors, len(res.Resources))
	}
	for _, r := range res.Resources {
		if l := r.SharedLimit; l == nil || l.Owner != "NodePool/gpu" {
			t.Errorf("%s: shared limit %+v", r.Address, l)
		}
		// Each is capped by the tighter of the two alone: the pool's 4.
		if r.ScaleMax == nil || r.ScaleMax.Quantity != 4 {
			t.Errorf("%s: scale max %+v", r.Address, r.ScaleMax)
		}
		notes := strings.Join(r.Notes, "\n")
		if !strings.Contains(notes, "shares ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 6) with 1 other workload: together they can request at most 6, not the 8") ||
			!strings.Contains(notes, "the totals count it within NodePool/gpu's limit of 4 nvidia.com/gpu, not also within the quota") {
			t.Errorf("%s: notes %s", r.Address, notes)
		}
	}
}

// buildWarning builds src (case name), which must read without errors, and checks its warnings:
// none when want is "", else one that contains want.
func buildWarning(t *testing.T, name, src, want string) parser.Result {
	t.Helper()
	res := build(t, src, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("%s: errors %v", name, res.Errors)
	}
	var warns []string
	for _, w := range res.Warnings {
		warns = append(warns, w.Message)
	}
	if got := strings.Join(warns, "\n"); want == "" && got != "" || !strings.Contains(got, want) {
		t.Errorf("%s: warnings %q, want %q", name, got, want)
	}
	return res
}
