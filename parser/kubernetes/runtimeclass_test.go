package kubernetes

import (
	"strings"
	"testing"
)

// runtimeClassSrc is a RuntimeClass kata (its fields after the handler, flush left) and a
// Deployment ml/a of 2 pods, each asking for 1 GPU, 3 CPUs and 12Gi, under RuntimeClass class,
// with the given lines added to its pod spec (six spaces in).
func runtimeClassSrc(fields, class, pod string) string {
	return "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata-qemu\n" + fields + "---\n" +
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: ml}\nspec:\n  replicas: 2\n  template:\n    spec:\n" +
		"      runtimeClassName: " + class + "\n" + pod +
		"      containers: [{name: c, resources: {requests: {cpu: \"3\", memory: 12Gi}, limits: {nvidia.com/gpu: 1}}}]\n"
}

const kataOverhead = "overhead:\n  podFixed: {cpu: 500m, memory: 2Gi}\n"

// A RuntimeClass's pod overhead is added to what each of its pods requests, as the admission
// plugin sets it and the scheduler counts it; a pod that sets the same overhead itself is
// admitted as it is.
func TestRuntimeClassOverhead(t *testing.T) {
	for _, c := range []struct {
		name, src string
		cpu, mem  float64
		note      string
	}{
		{"the class's overhead", runtimeClassSrc(kataOverhead, "kata", ""), 3.5, 14,
			"RuntimeClass/kata adds a pod overhead of cpu 500m, memory 2Gi to each of its pods: counted with their requests, as the scheduler counts it"},
		{"a pod that sets the same overhead", runtimeClassSrc(kataOverhead, "kata", "      overhead: {cpu: \"0.5\", memory: 2048Mi}\n"), 3.5, 14, ""},
		{"a class without overhead", runtimeClassSrc("", "kata", ""), 3, 12, ""},
		{"no class", runtimeClassSrc(kataOverhead, `""`, ""), 3, 12, ""},
	} {
		checkPodAsks(t, c.name, c.src, c.cpu, c.mem, c.note, "RuntimeClass")
	}
}

// checkPodAsks builds src, a workload of one resource and no warning, and checks what its pods
// ask for of CPU and memory (GiB), and that a note says note ("": that none mentions topic).
func checkPodAsks(t *testing.T, name, src string, cpu, mem float64, note, topic string) {
	t.Helper()
	r := one(t, buildWarning(t, name, src, ""))
	if r.Pod.CPU != cpu || r.Pod.MemoryGiB != mem {
		t.Errorf("%s: pod asks for %g CPUs and %g GiB, want %g and %g", name, r.Pod.CPU, r.Pod.MemoryGiB, cpu, mem)
	}
	notes := strings.Join(r.Notes, "\n")
	if note == "" && strings.Contains(notes, topic) || !strings.Contains(notes, note) {
		t.Errorf("%s: notes %q, want %q", name, notes, note)
	}
}

// A RuntimeClass's scheduling places its pods: its node selector is merged into theirs and its
// tolerations added to theirs, so a pod that names no node lands where the class selects.
func TestRuntimeClassScheduling(t *testing.T) {
	sched := "scheduling:\n  nodeSelector: {node.kubernetes.io/instance-type: g6.2xlarge}\n" +
		"  tolerations: [{key: sandbox, operator: Exists, effect: NoSchedule}]\n"
	r := one(t, buildWarning(t, "scheduling", runtimeClassSrc(sched, "kata", ""), ""))
	if r.InstanceType != "g6.2xlarge" {
		t.Errorf("priced on %q, want the class's g6.2xlarge", r.InstanceType)
	}
	want := "RuntimeClass/kata gives its pods the node selector node.kubernetes.io/instance-type=g6.2xlarge and tolerations of sandbox:NoSchedule: they run only on the nodes it selects"
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
	// A pod that selects the same already, and tolerates the same taint, is given nothing new.
	pod := "      nodeSelector: {node.kubernetes.io/instance-type: g6.2xlarge}\n      tolerations: [{key: sandbox, operator: Exists, effect: NoSchedule}]\n"
	r = one(t, buildWarning(t, "already", runtimeClassSrc(sched, "kata", pod), ""))
	if notes := strings.Join(r.Notes, "\n"); strings.Contains(notes, "RuntimeClass") {
		t.Errorf("notes %q: the class adds nothing the pods lack", notes)
	}
	// The class's taint toleration lets its pods onto a tainted Karpenter NodePool.
	pool := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: sandboxed}\nspec:\n  template:\n    spec:\n" +
		"      requirements: [{key: karpenter.k8s.aws/instance-family, operator: In, values: [g6e]}]\n" +
		"      taints: [{key: sandbox, value: kata, effect: NoSchedule}]\n---\n"
	tolerate := "scheduling:\n  tolerations: [{key: sandbox, operator: Equal, value: kata, effect: NoSchedule}]\n"
	r = one(t, buildWarning(t, "pool", pool+runtimeClassSrc(tolerate, "kata", ""), ""))
	if r.Pod.NodeSource != "NodePool/sandboxed karpenter instance-family, NodePool/sandboxed" {
		t.Errorf("node from %q, want the NodePool/sandboxed its class tolerates", r.Pod.NodeSource)
	}
	r = one(t, buildWarning(t, "pool without the class", pool+runtimeClassSrc(tolerate, `""`, ""), "no NodePool among the files admits its pods (NodePool/sandboxed: their requirements or taints exclude their selection)"))
	if r.Pod.NodeSource != "" {
		t.Errorf("node from %q, want none: the pods do not tolerate the pool's taint", r.Pod.NodeSource)
	}
}

// The API server refuses a pod whose node selector contradicts its class's, whose own overhead
// is not its class's, or that sets an overhead without a class: a warning, priced as declared.
func TestRuntimeClassRefuses(t *testing.T) {
	sched := kataOverhead + "scheduling:\n  nodeSelector: {karpenter.sh/capacity-type: on-demand}\n"
	for _, c := range []struct {
		name, src, warning string
		cpu                float64 // as declared: the pods' own overhead counts
	}{
		{"a contradicting node selector", runtimeClassSrc(sched, "kata", "      nodeSelector: {karpenter.sh/capacity-type: spot, node.kubernetes.io/instance-type: g6.xlarge}\n"),
			"Deployment/ml/a: the API server refuses its pods, so none of them run: RuntimeClass/kata's scheduling.nodeSelector sets karpenter.sh/capacity-type=on-demand, but the pods' nodeSelector sets karpenter.sh/capacity-type=spot (priced as declared)", 3},
		{"another overhead", runtimeClassSrc(kataOverhead, "kata", "      nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}\n      overhead: {cpu: 250m, memory: 2Gi}\n"),
			"refuses its pods, so none of them run: its pods' spec.overhead is not RuntimeClass/kata's (cpu 500m, memory 2Gi)", 3.25},
		{"an overhead the class does not set", runtimeClassSrc("", "kata", "      nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}\n      overhead: {cpu: 250m}\n"),
			"its pods set spec.overhead, but RuntimeClass/kata sets none", 3.25},
		{"an overhead without a class", runtimeClassSrc("", `""`, "      nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}\n      overhead: {cpu: 250m}\n"),
			"its pods set spec.overhead but name no RuntimeClass, whose overhead it must be", 3.25},
	} {
		r := one(t, buildWarning(t, c.name, c.src, c.warning))
		if r.InstanceType != "g6.xlarge" || r.Pod.CPU != c.cpu {
			t.Errorf("%s: priced on %q with %g CPUs, want g6.xlarge and %g, as declared", c.name, r.InstanceType, r.Pod.CPU, c.cpu)
		}
		if notes := strings.Join(r.Notes, "\n"); strings.Contains(notes, "RuntimeClass/kata") {
			t.Errorf("%s: notes %q: a refused pod gets nothing from its class", c.name, notes)
		}
	}
}

// A class not among the files (one the platform creates: GKE Sandbox's gvisor) is a note;
// among several of one name, a pod takes the one declared nearest it.
func TestRuntimeClassLookup(t *testing.T) {
	r := one(t, buildWarning(t, "absent", runtimeClassSrc(kataOverhead, "gvisor", ""), ""))
	want := "its pods run under RuntimeClass gvisor, which is not among the files read: the pod overhead and node selection it may add are not counted"
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, want) || r.Pod.CPU != 3 {
		t.Errorf("notes %q, %g CPUs; want %q and the pods' own 3", notes, r.Pod.CPU, want)
	}
	class := "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata-qemu\noverhead:\n  podFixed: {cpu: "
	files := []*File{
		Decode("clusters/dev/kata.yaml", []byte(class+"250m}\n")),
		Decode("clusters/prod/kata.yaml", []byte(class+"\"2\"}\n")),
		Decode("clusters/prod/apps/a.yaml", []byte(strings.SplitN(runtimeClassSrc("", "kata", ""), "---\n", 2)[1])),
	}
	res := Build(files, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	if r := one(t, res); r.Pod.CPU != 5 {
		t.Errorf("%g CPUs, want 3 and clusters/prod's overhead of 2", r.Pod.CPU)
	}
}

// A RuntimeClass the API server refuses is an error at its line, and its pods get nothing from
// it.
func TestRuntimeClassErrors(t *testing.T) {
	for _, c := range []struct {
		name, class string
		line        int
		want        string
	}{
		{"no handler", "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\n" + kataOverhead, 1,
			"RuntimeClass/kata: handler is required: the API server refuses the RuntimeClass"},
		{"a bad quantity", "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata-qemu\noverhead:\n  podFixed:\n    cpu: lots\n", 7,
			`RuntimeClass/kata: overhead.podFixed: cpu: quantity "lots"`},
		{"podFixed not a map", "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata-qemu\noverhead:\n  podFixed: [cpu]\n", 6,
			"RuntimeClass/kata: overhead.podFixed must map resources to quantities"},
		{"a removed API", "apiVersion: node.k8s.io/v1beta1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata-qemu\n" + kataOverhead, 1,
			"RuntimeClass/kata: Kubernetes serves RuntimeClass as node.k8s.io/v1 only (node.k8s.io/v1beta1 went in 1.25), so the API server refuses this node.k8s.io/v1beta1 manifest"},
	} {
		src := c.class + "---\n" + strings.SplitN(runtimeClassSrc("", "kata", "      nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}\n"), "---\n", 2)[1]
		res := build(t, src, Options{})
		if len(res.Errors) != 1 || res.Errors[0].Line != c.line || !strings.Contains(res.Errors[0].Message, c.want) {
			t.Errorf("%s: errors %v, want %q at line %d", c.name, res.Errors, c.want, c.line)
		}
		if r := one(t, res); r.Pod.CPU != 3 {
			t.Errorf("%s: %g CPUs, want the pods' own 3", c.name, r.Pod.CPU)
		}
	}
}

// What a RuntimeClass's overhead adds to its pods counts wherever their requests do: a
// ResourceQuota's requests (and its limits, where the pods set a limit), a LimitRange's Pod
// items and a Kueue ClusterQueue's quota.
func TestRuntimeClassOverheadCounts(t *testing.T) {
	class := "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata-qemu\noverhead:\n  podFixed: {cpu: 500m}\n---\n"
	kata := func(src string) string {
		return class + strings.ReplaceAll(src, "    spec:\n      nodeSelector", "    spec:\n      runtimeClassName: kata\n      nodeSelector")
	}
	hpa := "maxReplicas of HorizontalPodAutoscaler/ml/a"
	limited := func(src string) string { return strings.Replace(src, `limits: {`, `limits: {cpu: "2", `, 1) }
	checkCaps(t, hpa, true, []capCase{
		{"requests.cpu", kata(quotaSrc("  hard: {requests.cpu: \"6\"}\n", "ml/a 1 1 10")), 4, "ResourceQuota/ml/gpus (requests.cpu: 6)", ""},
		{"limits.cpu", kata(limited(quotaSrc("  hard: {limits.cpu: \"7\"}\n", "ml/a 1 1 10"))), 2, "ResourceQuota/ml/gpus (limits.cpu: 7)", ""},
		{"without the class", limited(quotaSrc("  hard: {requests.cpu: \"6\", limits.cpu: \"7\"}\n", "ml/a 1 1 10")), 3, "ResourceQuota/ml/gpus (limits.cpu: 7)", ""},
	})
	// A LimitRange's Pod max counts the overhead on a limit the pods set, and its min on their
	// request.
	src := kata(limitRangeSrc(`{type: Pod, max: {cpu: "2250m"}}`, `{name: main, resources: {limits: {nvidia.com/gpu: 1, cpu: "2"}}}`))
	buildWarning(t, "a pod max", src, `Deployment/ml/a: the API server refuses its pods, so none of them run: LimitRange/ml/lr refuses them: a pod's cpu limit of 2.5 passes the max of 2250m a pod`)
	// The overhead counts toward a limit only where the pods set one.
	buildWarning(t, "a pod ratio", kata(limitRangeSrc(`{type: Pod, maxLimitRequestRatio: {cpu: "2"}}`, `{name: main, resources: {requests: {cpu: "1"}, limits: {nvidia.com/gpu: 1}}}`)),
		"LimitRange/ml/lr refuses them: a pod's cpu limit is not set (or 0), which a max limit-to-request ratio of 2 needs")
	buildWarning(t, "a pod min", kata(limitRangeSrc(`{type: Pod, min: {cpu: 500m}}`, `{name: main, resources: {limits: {nvidia.com/gpu: 1}}}`)), "")
	// Kueue counts it in the quota of the flavor that covers CPU.
	job := kueueJob("2", "8", "      runtimeClassName: kata\n")
	for _, c := range []struct {
		name, quota, typ, warning string
	}{
		{"within the quota", "10", "p4d.24xlarge", ""},
		{"past it", "8", "", "no flavor of ClusterQueue train holds its pods' cpu (plain: 9 cpu asked, 8 at most)"},
	} {
		checkQueued(t, c.name, class+kueueFlavors+strings.Replace(kueueQueue("16", "64", ""), "nominalQuota: 1000", "nominalQuota: "+c.quota, 1)+job, c.typ, "", c.warning)
	}
}
