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
		{"every pod past it alone", quotaSrc("  hard: {requests.nvidia.com/gpu: \"1\"}\n", "ml/a 2 2 0"), map[string]*parser.ScaleMax{"Deployment/ml/a": nil}, false,
			"Deployment/ml/a runs 2 pods of 2 nvidia.com/gpu each, but ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 1) admits none: a pod's 2 pass its 1, so the API server refuses every one (priced as declared)"},
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
		{"pods whose GPUs come through DRA claims", "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: one, namespace: ml}\n" +
			"spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}}\n---\n" +
			strings.Replace(quotaSrc(gpus4, "ml/a 5 1 0"), "containers: [{name: c, resources: {requests: {cpu: \"1\"}, limits: {nvidia.com/gpu: 1}}}]",
				"resourceClaims: [{name: gpu, resourceClaimTemplateName: one}]\n      containers: [{name: c, resources: {requests: {cpu: \"1\"}, claims: [{name: gpu}]}}]", 1),
			map[string]*parser.ScaleMax{"Deployment/ml/a": nil}, false, ""},
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

// A quota the API server refuses (a value that is not a quantity, a scope or operator it does
// not take) is an error at its line and bounds nothing; the workloads are read.
func TestResourceQuotaErrors(t *testing.T) {
	for _, c := range []struct {
		spec, want string
		line       int
	}{
		{"  hard: {requests.nvidia.com/gpu: lots}\n", "ResourceQuota/ml/gpus: hard: requests.nvidia.com/gpu", 5},
		{"  scopes:\n  - NotBestEffort\n  - Priority\n  hard: {requests.nvidia.com/gpu: \"1\"}\n", `scope "Priority" is not one Kubernetes knows`, 7},
		{"  scopeSelector: {matchExpressions: [{scopeName: NotBestEffort, operator: DoesNotExist}]}\n  hard: {requests.nvidia.com/gpu: \"1\"}\n",
			`scope NotBestEffort takes only the operator Exists, not "DoesNotExist": the API server refuses the quota`, 5},
		{"  scopeSelector: {matchExpressions: [{scopeName: PriorityClass, operator: In}]}\n  hard: {requests.nvidia.com/gpu: \"1\"}\n", "PriorityClass In needs values", 5},
		{"  scopeSelector: {matchExpressions: [{scopeName: PriorityClass, operator: Exists, values: [high]}]}\n  hard: {requests.nvidia.com/gpu: \"1\"}\n", "PriorityClass Exists takes no values", 5},
		{"  scopeSelector: {matchExpressions: [{scopeName: PriorityClass, operator: Equals, values: [high]}]}\n  hard: {requests.nvidia.com/gpu: \"1\"}\n", `operator "Equals" is not In, NotIn, Exists or DoesNotExist`, 5},
	} {
		res := build(t, quotaSrc(c.spec, "ml/a 2 1 10"), Options{})
		if len(res.Errors) != 1 || res.Errors[0].Line != c.line || !strings.Contains(res.Errors[0].Message, c.want) {
			t.Errorf("%q: errors %v, want %q", c.spec, res.Errors, c.want)
		}
		if len(res.Resources) != 1 || res.Resources[0].ScaleMax == nil || res.Resources[0].ScaleMax.Quantity != 10 {
			t.Errorf("%q: resources %+v", c.spec, res.Resources)
		}
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

// A workload capped by a NodePool's limit and then by a quota's tighter one names in
// scale_max.from only the quota, the limit that binds; its notes say each cap in turn.
func TestScaleMaxNamesTheBindingCap(t *testing.T) {
	pool := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  limits: {nvidia.com/gpu: 8}\n" +
		"  template: {spec: {requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [g6.12xlarge]}]}}\n---\n"
	src := pool + strings.ReplaceAll(quotaSrc("  hard: {requests.nvidia.com/gpu: \"3\"}\n", "ml/a 1 1 10"),
		"nodeSelector: {node.kubernetes.io/instance-type: g6.12xlarge}", "nodeSelector: {karpenter.sh/nodepool: gpu}")
	r := one(t, build(t, src, Options{}))
	want := "maxReplicas of HorizontalPodAutoscaler/ml/a, capped by ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 3)"
	if r.ScaleMax == nil || r.ScaleMax.Quantity != 3 || r.ScaleMax.From != want {
		t.Errorf("scale max %+v, want 3 from %q", r.ScaleMax, want)
	}
	notes := strings.Join(r.Notes, "\n")
	if !strings.Contains(notes, "at most 8 pods at full scale-out, not the 10 of the maxReplicas of HorizontalPodAutoscaler/ml/a: NodePool/gpu's limits") ||
		!strings.Contains(notes, "at most 3 pods at full scale-out, not the 8 of the maxReplicas of HorizontalPodAutoscaler/ml/a, capped by NodePool/gpu's limits (nvidia.com/gpu: 8): ResourceQuota/ml/gpus") {
		t.Errorf("notes %s", notes)
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

// draQuotaSrc is a ResourceQuota of namespace ml (hard as given), the ResourceClaimTemplate
// one (its requests as given) and Deployments as quotaSrc's whose pods take their GPUs through a
// claim made from it.
func draQuotaSrc(hard, requests string, deployments ...string) string {
	tmpl := "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: one, namespace: ml}\nspec: {spec: {devices: {requests: [" + requests + "]}}}\n---\n"
	return tmpl + strings.ReplaceAll(quotaSrc("  hard: {"+hard+"}\n", deployments...), "containers: [{name: c, resources: {requests: {cpu: \"1\"}, limits: {nvidia.com/gpu: 1}}}]",
		"resourceClaims: [{name: gpu, resourceClaimTemplateName: one}]\n      containers: [{name: c, resources: {requests: {cpu: \"1\"}, claims: [{name: gpu}]}}]")
}

// A quota on a device class's devices bounds the pods whose claims take them, as the API
// server's claim evaluator counts them: a claim's exact count, 32 for allocationMode All, the
// largest of firstAvailable's alternatives; the namespace's ResourceClaims take theirs first.
func TestResourceQuotaOnDeviceClass(t *testing.T) {
	const quota4 = `gpu.nvidia.com.deviceclass.resource.k8s.io/devices: "4"`
	const what = "ResourceQuota/ml/gpus (gpu.nvidia.com.deviceclass.resource.k8s.io/devices: 4)"
	one := "{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}"
	two := "{name: gpu, exactly: {deviceClassName: gpu.nvidia.com, count: 2}}"
	shared := func(count int) string {
		return fmt.Sprintf("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: cache, namespace: ml}\n"+
			"spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com, count: %d}}]}}\n---\n", count)
	}
	hpa := "maxReplicas of HorizontalPodAutoscaler/ml/a"
	for _, c := range []struct {
		name string
		src  string
		max  int    // the workload's scale max; 0 for none
		from string // what it is capped by, "" for its HPA alone
		warn string
	}{
		{"one device a pod", draQuotaSrc(quota4, one, "ml/a 1 1 10"), 4, what, ""},
		{"two devices a pod", draQuotaSrc(quota4, two, "ml/a 1 1 10"), 2, what, ""},
		{"the largest alternative", draQuotaSrc(quota4, "{name: gpu, firstAvailable: [{name: small, deviceClassName: gpu.nvidia.com}, {name: big, deviceClassName: gpu.nvidia.com, count: 2}]}", "ml/a 1 1 10"),
			2, what, ""},
		{"another class's quota", draQuotaSrc(`mig.nvidia.com.deviceclass.resource.k8s.io/devices: "4"`, one, "ml/a 1 1 10"), 10, "", ""},
		{"another namespace", strings.Replace(draQuotaSrc(quota4, one, "ml/a 1 1 10"), "metadata: {name: gpus, namespace: ml}", "metadata: {name: gpus, namespace: dev}", 1), 10, "", ""},
		{"a scoped quota counts no claim", strings.Replace(draQuotaSrc(quota4, one, "ml/a 1 1 10"), "  hard:", "  scopes: [NotTerminating]\n  hard:", 1), 10, "", ""},
		{"allocationMode All counts 32", draQuotaSrc(quota4, "{name: gpu, exactly: {deviceClassName: gpu.nvidia.com, allocationMode: All}}", "ml/a 1 1 10"), 0, "",
			"Deployment/ml/a runs 1 pod of 32 gpu.nvidia.com devices each, but " + what + " admits none: a pod's 32 pass its 4: the API server refuses its claims, so it stays pending without devices (priced as declared)"},
		{"a shared claim takes its devices first", shared(2) + draQuotaSrc(quota4, one, "ml/a 1 1 10"), 2, what, ""},
		{"a shared claim of another namespace", strings.Replace(shared(2), "namespace: ml", "namespace: dev", 1) + draQuotaSrc(quota4, one, "ml/a 1 1 10"), 4, what, ""},
		{"two claims a pod", strings.Replace(draQuotaSrc(quota4, one, "ml/a 1 1 10"), "resourceClaims: [{name: gpu, resourceClaimTemplateName: one}]",
			"resourceClaims: [{name: gpu, resourceClaimTemplateName: one}, {name: more, resourceClaimTemplateName: one}]", 1), 2, what, ""},
		{"a shared claim past the quota", shared(6) + draQuotaSrc(quota4, one, "ml/a 1 1 10"), 0, "",
			"ResourceClaim/ml/cache request 6 gpu.nvidia.com devices together, but " + what + " admits 4 in namespace ml: the API server refuses the claims past it"},
		{"floors past what the shared claim leaves", shared(2) + draQuotaSrc(quota4, one, "ml/a 3 1 10"), 0, "",
			"Deployment/ml/a runs 3 pods of 1 gpu.nvidia.com device each, but " + what + " admits 2 beside the 2 of ResourceClaim/ml/cache: the API server refuses the others' claims, so those pods stay pending without devices"},
	} {
		oneCapped(t, c.name, buildWarning(t, c.name, c.src, c.warn), c.max, hpa, c.from)
	}
}

// oneCapped checks the one workload of res: no maximum when max is 0, else max pods from its
// HPA (hpa), capped by from when that is not "".
func oneCapped(t *testing.T, name string, res parser.Result, max int, hpa, from string) {
	t.Helper()
	if len(res.Resources) != 1 {
		t.Fatalf("%s: %d resources", name, len(res.Resources))
	}
	switch m := res.Resources[0].ScaleMax; {
	case max == 0:
		if m != nil {
			t.Errorf("%s: scale max %+v", name, m)
		}
	case m == nil || m.Quantity != max:
		t.Errorf("%s: scale max %+v, want %d", name, m, max)
	case from == "" && m.From != hpa, from != "" && m.From != hpa+", capped by "+from:
		t.Errorf("%s: from %q", name, m.From)
	}
}

// Workloads whose claims' maximums together pass a class's quota are counted within it, after
// the namespace's ResourceClaims; floors past it together are a warning.
func TestResourceQuotaOnDeviceClassShared(t *testing.T) {
	const quota = `gpu.nvidia.com.deviceclass.resource.k8s.io/devices: "6"`
	cache := "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: cache, namespace: ml}\n" +
		"spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}\n---\n"
	one := "{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}"
	res := buildWarning(t, "maximums", cache+draQuotaSrc(quota, one, "ml/a 1 1 10", "ml/b 2 1 10"), "")
	for _, r := range res.Resources {
		l := r.SharedLimit
		if l == nil || l.Owner != "ResourceQuota/ml/gpus" || l.Limit != 5 || l.Unit != "gpu.nvidia.com.deviceclass.resource.k8s.io/devices" || l.PerInstance != 1 || !l.Admission {
			t.Errorf("%s: shared limit %+v", r.Address, l)
		}
		if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, "together they can request at most the 5 left beside the 1 of ResourceClaim/ml/cache, not the 10 their maximums add up to") {
			t.Errorf("%s: notes %s", r.Address, notes)
		}
	}
	buildWarning(t, "floors", cache+draQuotaSrc(quota, one, "ml/a 3 1 10", "ml/b 3 1 10"),
		"Deployment/ml/a and Deployment/ml/b request 6 gpu.nvidia.com devices at their floors together, but ResourceQuota/ml/gpus (gpu.nvidia.com.deviceclass.resource.k8s.io/devices: 6) admits 6 in namespace ml beside the 1 of ResourceClaim/ml/cache: the API server refuses the claims past it, so some of them stay pending without devices (priced as declared)")
}

// A quota on CPU or memory requests bounds the GPU workloads whose pods request them, as a
// GPU quota does (the namespace's other pods take their share too: what is said is a most).
func TestResourceQuotaOnCPUAndMemory(t *testing.T) {
	// quotaSrc's pods request 1 CPU; give them memory too.
	withMemory := func(src string) string {
		return strings.ReplaceAll(src, `requests: {cpu: "1"}`, `requests: {cpu: "1", memory: 3Gi}`)
	}
	hpa := "maxReplicas of HorizontalPodAutoscaler/ml/a"
	checkCaps(t, hpa, true, []capCase{
		{"requests.cpu", quotaSrc("  hard: {requests.cpu: \"4\"}\n", "ml/a 1 1 10"), 4, "ResourceQuota/ml/gpus (requests.cpu: 4)", ""},
		{"cpu is requests.cpu", quotaSrc("  hard: {cpu: 2500m}\n", "ml/a 1 1 10"), 2, "ResourceQuota/ml/gpus (cpu: 2500m)", ""},
		{"requests.memory", withMemory(quotaSrc("  hard: {requests.memory: 10Gi}\n", "ml/a 1 1 10")), 3, "ResourceQuota/ml/gpus (requests.memory: 10Gi)", ""},
		{"memory is requests.memory", withMemory(quotaSrc("  hard: {memory: 6Gi}\n", "ml/a 1 1 10")), 2, "ResourceQuota/ml/gpus (memory: 6Gi)", ""},
		{"the tighter of a quota's limits", withMemory(quotaSrc("  hard: {requests.cpu: \"4\", requests.memory: 6Gi, requests.nvidia.com/gpu: \"8\"}\n", "ml/a 1 1 10")), 2,
			"ResourceQuota/ml/gpus (requests.memory: 6Gi)", ""}, // the cap that binds, after the CPU's 4
		{"limits.cpu", strings.Replace(quotaSrc("  hard: {limits.cpu: \"5\"}\n", "ml/a 1 1 10"), `limits: {`, `limits: {cpu: 2500m, `, 1), 2, "ResourceQuota/ml/gpus (limits.cpu: 5)", ""},
		{"limits.memory", strings.Replace(quotaSrc("  hard: {limits.memory: 20Gi}\n", "ml/a 1 1 10"), `limits: {`, `limits: {memory: 6Gi, `, 1), 3, "ResourceQuota/ml/gpus (limits.memory: 20Gi)", ""},
		// A quota on CPU or memory refuses pods whose containers do not set it.
		{"pods that request no CPU", strings.Replace(quotaSrc("  hard: {requests.cpu: \"2\"}\n", "ml/a 1 1 10"), `requests: {cpu: "1"}, `, "", 1), 10, "",
			`Deployment/ml/a: the API server refuses its pods ("must specify requests.cpu"), so none of them run: ResourceQuota/ml/gpus counts requests.cpu, which every container of its pods must then set, and container "c" sets no cpu request (priced as declared)`},
		{"a limit is a request", strings.Replace(quotaSrc("  hard: {cpu: \"4\"}\n", "ml/a 1 1 10"), `requests: {cpu: "1"}, limits: {`, `limits: {cpu: "2", `, 1), 2, "ResourceQuota/ml/gpus (cpu: 4)", ""},
		{"pods without limits", withMemory(quotaSrc("  hard: {requests.cpu: \"100\", limits.cpu: \"100\", limits.memory: 1Ti}\n", "ml/a 1 1 0")) +
			"      initContainers: [{name: fetch, resources: {limits: {cpu: \"1\"}}}]\n", 0, "",
			`Deployment/ml/a: the API server refuses its pods ("must specify limits.cpu,limits.memory"), so none of them run: ResourceQuota/ml/gpus counts limits.cpu, limits.memory, which every container of its pods must then set, and container "c" sets no cpu limit; containers "c", "fetch" set no memory limit (priced as declared)`},
		{"a floor past it", withMemory(quotaSrc("  hard: {requests.memory: 8Gi}\n", "ml/a 3 1 10")), 0, "",
			"Deployment/ml/a runs 3 pods of 3Gi of memory each, but ResourceQuota/ml/gpus (requests.memory: 8Gi) admits 2: the API server refuses the others, so they never run (priced as declared)"},
		{"scopes apply", quotaSrc("  scopes: [Terminating]\n  hard: {requests.cpu: \"4\"}\n", "ml/a 1 1 10"), 10, "", ""},
	})
	// Maximums together past it are counted within it; floors together past it are a warning.
	res := buildWarning(t, "maximums", quotaSrc("  hard: {requests.cpu: \"6\"}\n", "ml/a 1 1 10", "ml/b 1 1 10"), "")
	for _, r := range res.Resources {
		if l := r.SharedLimit; l == nil || l.Unit != "requests.cpu" || l.Limit != 6 || l.PerInstance != 1 || l.What != "quota of 6 requests.cpu" {
			t.Errorf("%s: shared limit %+v", r.Address, l)
		}
	}
	buildWarning(t, "floors", quotaSrc("  hard: {requests.cpu: \"3\"}\n", "ml/a 2 1 10", "ml/b 2 1 10"),
		"Deployment/ml/a and Deployment/ml/b request 4 CPU at their floors together, but ResourceQuota/ml/gpus (requests.cpu: 3) admits 3 in namespace ml: the API server refuses the pods past it, so some of them never run (priced as declared)")
}

// A quota on pods (pods, or count/pods) bounds the GPU workloads by their pods' count, a pod
// each; the namespace's other pods take their share too, as of a CPU quota.
func TestResourceQuotaOnPods(t *testing.T) {
	hpa := "maxReplicas of HorizontalPodAutoscaler/ml/a"
	bestEffort := func(src string) string { return strings.Replace(src, `requests: {cpu: "1"}, `, "", 1) }
	checkCaps(t, hpa, true, []capCase{
		{"pods", quotaSrc("  hard: {pods: \"4\"}\n", "ml/a 1 1 10"), 4, "ResourceQuota/ml/gpus (pods: 4)", ""},
		{"count/pods", quotaSrc("  hard: {count/pods: \"3\"}\n", "ml/a 1 1 10"), 3, "ResourceQuota/ml/gpus (count/pods: 3)", ""},
		{"the tighter of pods and GPUs", quotaSrc("  hard: {pods: \"5\", requests.nvidia.com/gpu: \"8\"}\n", "ml/a 1 2 10"), 4,
			"ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 8)", ""},
		{"a floor past it", quotaSrc("  hard: {pods: \"2\"}\n", "ml/a 3 1 10"), 0, "",
			"Deployment/ml/a runs 3 pods, but ResourceQuota/ml/gpus (pods: 2) admits 2: the API server refuses the others, so they never run (priced as declared)"},
		{"none admitted", quotaSrc("  hard: {pods: \"0\"}\n", "ml/a 1 1 10"), 0, "",
			"Deployment/ml/a runs 1 pod, but ResourceQuota/ml/gpus (pods: 0) admits none: the API server refuses it (priced as declared)"},
		{"BestEffort pods", bestEffort(quotaSrc("  scopes: [BestEffort]\n  hard: {pods: \"2\"}\n", "ml/a 1 1 10")), 2,
			"ResourceQuota/ml/gpus (pods: 2; scope BestEffort)", ""},
		{"not BestEffort pods", quotaSrc("  scopes: [BestEffort]\n  hard: {pods: \"2\"}\n", "ml/a 1 1 10"), 10, "", ""},
	})
	res := buildWarning(t, "maximums", quotaSrc("  hard: {pods: \"6\"}\n", "ml/a 1 1 10", "ml/b 1 1 10"), "")
	for _, r := range res.Resources {
		if l := r.SharedLimit; l == nil || l.Unit != "pods" || l.Limit != 6 || l.PerInstance != 1 || l.What != "quota of 6 pods" {
			t.Errorf("%s: shared limit %+v", r.Address, l)
		}
		if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, "together they can run at most 6, not the 12 their maximums add up to") { // each capped at 6 first
			t.Errorf("%s: notes %s", r.Address, notes)
		}
	}
	buildWarning(t, "floors", quotaSrc("  hard: {pods: \"3\"}\n", "ml/a 2 1 10", "ml/b 2 1 10"),
		"Deployment/ml/a and Deployment/ml/b run 4 pods at their floors together, but ResourceQuota/ml/gpus (pods: 3) admits 3 in namespace ml: the API server refuses the pods past it, so some of them never run (priced as declared)")
}

// A quota on an extended resource counts what the pods' containers request by that name, as the
// pod evaluator reads the spec: a DRA extended resource's (KEP-5004) and its class's implicit
// name too, and NeuronCores by their own name, not the devices that hold them.
func TestResourceQuotaOnExtendedResourceNames(t *testing.T) {
	const h100 = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: h100}\nspec:\n  selectors: [{cel: {expression: 'device.driver == \"gpu.nvidia.com\"'}}]\n  extendedResourceName: example.com/h100\n---\n"
	asks := func(hard, request string) string {
		return h100 + strings.Replace(quotaSrc("  hard: {"+hard+"}\n", "ml/a 1 1 10"), "limits: {nvidia.com/gpu: 1}", "limits: {"+request+"}", 1)
	}
	checkCaps(t, "maxReplicas of HorizontalPodAutoscaler/ml/a", false, []capCase{
		{"a DRA extended resource", asks(`requests.example.com/h100: "6"`, "example.com/h100: 2"), 3, `ResourceQuota/ml/gpus (requests.example.com/h100: 6)`, ""},
		{"a class's implicit name", asks(`requests.deviceclass.resource.kubernetes.io/h100: "4"`, `deviceclass.resource.kubernetes.io/h100: 1`), 4,
			`ResourceQuota/ml/gpus (requests.deviceclass.resource.kubernetes.io/h100: 4)`, ""},
		{"another name's quota", asks(`requests.nvidia.com/gpu: "1"`, "example.com/h100: 2"), 10, "", ""},
		{"NeuronCores", asks(`requests.aws.amazon.com/neuroncore: "8"`, "aws.amazon.com/neuroncore: 2"), 4, `ResourceQuota/ml/gpus (requests.aws.amazon.com/neuroncore: 8)`, ""},
		{"a sidecar's count too", strings.Replace(quotaSrc("  hard: {requests.nvidia.com/gpu: \"6\"}\n", "ml/a 1 1 10"),
			"limits: {nvidia.com/gpu: 1}}}", "limits: {nvidia.com/gpu: 1}}}, {name: d, resources: {limits: {nvidia.com/gpu: 1}}}", 1), 3,
			`ResourceQuota/ml/gpus (requests.nvidia.com/gpu: 6)`, ""},
	})
}

// capCase is a quota capping one workload, which an HPA scales: the most pods it is priced at
// (0: no maximum left), the cap scale_max.from names after the HPA's ("" for none), and the
// warning it gives ("" for none).
type capCase struct {
	name, src string
	max       int
	from      string
	warn      string
}

// checkCaps builds each case and checks its cap and warning (hpa: what declares the maximum);
// with besideOthers, the quota's limit is one the namespace's other pods share, which a capped
// workload's note must say.
func checkCaps(t *testing.T, hpa string, besideOthers bool, cases []capCase) {
	t.Helper()
	for _, c := range cases {
		res := buildWarning(t, c.name, c.src, c.warn)
		oneCapped(t, c.name, res, c.max, hpa, c.from)
		if besideOthers && c.from != "" && !strings.Contains(strings.Join(res.Resources[0].Notes, "\n"), "admits no more in namespace ml, and fewer beside its other pods") {
			t.Errorf("%s: notes %q", c.name, res.Resources[0].Notes)
		}
	}
}
