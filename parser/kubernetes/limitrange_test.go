package kubernetes

import (
	"strings"
	"testing"
)

// limitRangeSrc is a LimitRange ml/lr with the given items (YAML flow sequence entries) and a
// Deployment ml/a of 2 replicas with the given containers (flow sequence entries).
func limitRangeSrc(items, containers string) string {
	return "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr, namespace: ml}\nspec:\n  limits: [" + items + "]\n---\n" +
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: ml}\nspec:\n  replicas: 2\n  template:\n    spec:\n" +
		"      nodeSelector: {node.kubernetes.io/instance-type: g6.12xlarge}\n      containers: [" + containers + "]\n"
}

// A LimitRange's defaults fill in the CPU and memory requests a namespace's containers leave
// out, as the API server does: a container's own request, else its own limit, else the default
// request, else the default limit, else the min.
func TestLimitRangeFillsInRequests(t *testing.T) {
	gpu := `{name: main, resources: {limits: {nvidia.com/gpu: 1}}}`
	for _, c := range []struct {
		name, items, containers string
		cpu, memGiB             float64
		note                    string
	}{
		{"defaultRequest", `{type: Container, defaultRequest: {cpu: "2", memory: 8Gi}}`, gpu + `, {name: side}`, 4, 16,
			"LimitRange/ml/lr fills in what its containers leave out: requests cpu: 2 (main, side); memory: 8Gi (main, side)"},
		{"a container's own request and limit come first", `{type: Container, defaultRequest: {cpu: "2"}}`,
			`{name: main, resources: {requests: {cpu: 500m}, limits: {nvidia.com/gpu: 1}}}, {name: side, resources: {limits: {cpu: "3"}}}`, 3.5, 0, ""},
		{"default limit", `{type: Container, default: {cpu: "4"}}`, gpu, 4, 0,
			"LimitRange/ml/lr fills in what its containers leave out: requests cpu: 4 (main); limits cpu: 4 (main)"},
		{"max", `{type: Container, max: {memory: 32Gi}}`, gpu, 0, 32, "requests memory: 32Gi (main); limits memory: 32Gi (main)"},
		{"min", `{type: Container, min: {cpu: 250m}}`, gpu, 0.25, 0, "requests cpu: 250m (main)"},
		{"init containers", `{type: Container, defaultRequest: {cpu: "1"}}`, gpu + "]\n      initContainers: [{name: fetch}, {name: proxy, restartPolicy: Always}", 2, 0,
			"requests cpu: 1 (main, fetch, proxy)"},
		{"a Pod item sets no default", `{type: Pod, max: {cpu: "64"}}, {type: PersistentVolumeClaim, max: {storage: 1Ti}}`,
			`{name: main, resources: {limits: {nvidia.com/gpu: 1, cpu: "8"}}}`, 8, 0, ""},
	} {
		res := buildWarning(t, c.name, limitRangeSrc(c.items, c.containers), "")
		r := one(t, res)
		if r.Pod.CPU != c.cpu || r.Pod.MemoryGiB != c.memGiB || r.Pod.Requested != 1 {
			t.Errorf("%s: pod %+v, want %g CPU and %g GiB", c.name, r.Pod, c.cpu, c.memGiB)
		}
		notes := strings.Join(r.Notes, "\n")
		if c.note == "" && strings.Contains(notes, "LimitRange") || !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes %q, want %q", c.name, notes, c.note)
		}
	}
}

// A LimitRange whose max (or default) allows GPUs gives them to every container of its
// namespace that names none: a GPU pod's sidecar, and the pods of workloads that ask for no
// GPU at all. Each is a warning, and priced so.
func TestLimitRangeGivesGPUs(t *testing.T) {
	src := limitRangeSrc(`{type: Container, max: {nvidia.com/gpu: "1", cpu: "16"}}`,
		`{name: main, resources: {limits: {nvidia.com/gpu: 1}}}, {name: logs}`) +
		"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ml}\nspec:\n  template:\n    spec:\n      containers: [{name: nginx, resources: {requests: {cpu: 500m}}}]\n" +
		"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: other}\nspec:\n  template:\n    spec:\n      containers: [{name: nginx}]\n"
	res := build(t, src, Options{})
	if len(res.Errors) > 0 || len(res.Resources) != 2 {
		t.Fatalf("errors %v, resources %+v", res.Errors, res.Resources)
	}
	byAddr := map[string]int64{}
	for _, r := range res.Resources {
		byAddr[r.Address] = r.Pod.Requested
	}
	if byAddr["Deployment/ml/a"] != 2 || byAddr["Deployment/ml/web"] != 1 {
		t.Errorf("GPUs a pod %v, want a: 2 (main and logs), ml/web: 1 (nginx), other/web: none", byAddr)
	}
	var warns []string
	for _, w := range res.Warnings {
		warns = append(warns, w.Message)
	}
	got := strings.Join(warns, "\n")
	for _, want := range []string{
		`Deployment/ml/a: LimitRange/ml/lr gives container "logs" 1 nvidia.com/gpu that it does not ask for (its max, the default limit when it sets none): each pod requests 2 nvidia.com/gpu, and is priced so`,
		`Deployment/ml/web: LimitRange/ml/lr gives container "nginx" 1 nvidia.com/gpu that it does not ask for`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings %q, want %q", got, want)
		}
	}
	// A container that requests its GPU, and sets no limit, asks for what it is given.
	buildWarning(t, "requested", limitRangeSrc(`{type: Container, max: {nvidia.com/gpu: "1"}}`, `{name: main, resources: {requests: {nvidia.com/gpu: 1}}}`), "")
	// A default it sets, to two containers; where two items set one, the last wins.
	buildWarning(t, "default", limitRangeSrc(`{type: Container, default: {nvidia.com/gpu: "2"}}, {type: Container, default: {nvidia.com/gpu: "1"}}`, `{name: main}, {name: logs}`),
		`Deployment/ml/a: LimitRange/ml/lr gives container "main" 1 nvidia.com/gpu, container "logs" 1 nvidia.com/gpu that they do not ask for (its default limit): each pod requests 2 nvidia.com/gpu, and is priced so`)
	// A default of 0 gives none.
	res = buildWarning(t, "default 0", limitRangeSrc(`{type: Container, max: {nvidia.com/gpu: "1"}, default: {nvidia.com/gpu: "0"}}`,
		`{name: main, resources: {limits: {nvidia.com/gpu: 1}}}, {name: logs}`), "")
	if r := one(t, res); r.Pod.Requested != 1 {
		t.Errorf("default 0: pod %+v", r.Pod)
	}
}

// A pod past a LimitRange's max or under its min is refused by the API server: a warning
// that says why (priced as declared).
func TestLimitRangeRefusesPods(t *testing.T) {
	const refused = "Deployment/ml/a: the API server refuses its pods, so none of them run: LimitRange/ml/lr refuses them: "
	for _, c := range []struct {
		name, items, containers, why string
	}{
		{"a container's GPUs past max", `{type: Container, max: {nvidia.com/gpu: "1"}}`, `{name: main, resources: {limits: {nvidia.com/gpu: 2}}}`,
			`container "main"'s nvidia.com/gpu limit of 2 passes the max of 1 a container`},
		{"a pod's memory past max", `{type: Pod, max: {memory: 16Gi}}`,
			`{name: main, resources: {limits: {nvidia.com/gpu: 1, memory: 12Gi}}}, {name: side, resources: {limits: {memory: 8Gi}}}`,
			"a pod's memory limit of 20Gi passes the max of 16Gi a pod"},
		{"a pod's limit missing", `{type: Pod, max: {cpu: "8"}}`, `{name: main, resources: {requests: {cpu: "2"}, limits: {nvidia.com/gpu: 1}}}`,
			"its pods set no cpu limit, which a pod must under a max of 8"},
		{"a pod's GPUs under min", `{type: Pod, min: {nvidia.com/gpu: "2"}}`, `{name: main, resources: {limits: {nvidia.com/gpu: 1}}}`,
			"a pod's nvidia.com/gpu request of 1 is under the min of 2 a pod"},
		{"a pod's request missing", `{type: Pod, min: {cpu: "1"}}`, `{name: main, resources: {limits: {nvidia.com/gpu: 1}}}`,
			"its pods request no cpu, which a pod must under a min of 1"},
		{"a container's CPU under min", `{type: Container, min: {cpu: "2"}}`, `{name: main, resources: {requests: {cpu: "1"}, limits: {nvidia.com/gpu: 1}}}`,
			`container "main"'s cpu request of 1 is under the min of 2 a container`},
		{"a default limit under the request", `{type: Container, default: {cpu: "2"}}`, `{name: main, resources: {requests: {cpu: "4"}, limits: {nvidia.com/gpu: 1}}}`,
			`container "main" requests 4 cpu, more than the default limit of 2 it is given`},
		{"a container's limit past the ratio", `{type: Container, maxLimitRequestRatio: {cpu: "2"}}`, `{name: main, resources: {requests: {cpu: "1"}, limits: {cpu: "4", nvidia.com/gpu: 1}}}`,
			`container "main"'s cpu limit is 4 times its request, past the max ratio of 2`},
		{"a container's limit missing under a ratio", `{type: Container, maxLimitRequestRatio: {memory: "2"}}`, `{name: main, resources: {requests: {memory: 8Gi}, limits: {nvidia.com/gpu: 1}}}`,
			`container "main"'s memory limit is not set (or 0), which a max limit-to-request ratio of 2 needs`},
		{"a pod's request missing under a ratio", `{type: Pod, maxLimitRequestRatio: {cpu: "3"}}`, `{name: main, resources: {limits: {nvidia.com/gpu: 1}}}`,
			`a pod's cpu request is not set (or 0), which a max limit-to-request ratio of 3 needs`},
		{"a pod's limit past the ratio", `{type: Pod, maxLimitRequestRatio: {cpu: "3"}}`,
			`{name: main, resources: {requests: {cpu: "1"}, limits: {cpu: "3", nvidia.com/gpu: 1}}}, {name: side, resources: {requests: {cpu: "1"}, limits: {cpu: "3"}}}, {name: tail, resources: {requests: {cpu: "1"}, limits: {cpu: "4"}}}`,
			`a pod's cpu limit is 3.333 times its request, past the max ratio of 3`},
		{"within", `{type: Container, max: {nvidia.com/gpu: "1", cpu: "8"}, min: {cpu: "1"}}, {type: Pod, max: {memory: 16Gi}, min: {nvidia.com/gpu: "1"}, maxLimitRequestRatio: {cpu: "2"}}`,
			`{name: main, resources: {requests: {cpu: "2"}, limits: {cpu: "4", nvidia.com/gpu: 1, memory: 16Gi}}}`, ""},
	} {
		want := ""
		if c.why != "" {
			want = refused + c.why + " (priced as declared)"
		}
		res := buildWarning(t, c.name, limitRangeSrc(c.items, c.containers), want)
		if r := one(t, res); r.Quantity != 2 {
			t.Errorf("%s: %d pods, want the 2 declared", c.name, r.Quantity)
		}
	}
}

// A LimitRange the API server refuses is an error at its item's line, and bounds nothing.
func TestLimitRangeErrors(t *testing.T) {
	gpu := `{name: main, resources: {limits: {nvidia.com/gpu: 2}}}`
	for _, c := range []struct{ items, want string }{
		{`{type: Node, max: {cpu: "1"}}`, `limits[0]: type "Node" is not Container, Pod or PersistentVolumeClaim`},
		{`{type: Pod, default: {cpu: "1"}}`, "limits[0]: default and defaultRequest apply only to type Container"},
		{`{type: Container, min: {nvidia.com/gpu: "2"}, max: {nvidia.com/gpu: "1"}}`, "limits[0]: nvidia.com/gpu: min 2 is more than max 1"},
		{`{type: Container, default: {cpu: "1"}, defaultRequest: {cpu: "2"}}`, "limits[0]: cpu: defaultRequest 2 is more than default 1"},
		{`{type: Container, default: {cpu: "8"}, max: {cpu: "4"}}`, "limits[0]: cpu: default 8 is more than max 4"},
		{`{type: Container, min: {cpu: "2"}, defaultRequest: {cpu: "1"}}`, "limits[0]: cpu: min 2 is more than defaultRequest 1"},
		{`{type: Container, default: {nvidia.com/gpu: "2"}, defaultRequest: {nvidia.com/gpu: "1"}}`, "nvidia.com/gpu: defaultRequest 1 is not default 2, as an extended resource's must be"},
		{`{type: Container, max: {nvidia.com/gpu: 500m}}`, "limits[0].max: nvidia.com/gpu: 500m is not a whole number of devices"},
		{`{type: Container, max: {cpu: lots}}`, `limits[0].max: cpu: quantity "lots" is not a number`},
		{"", "spec.limits must be a list of items"},
		{`{type: Container, maxLimitRequestRatio: {cpu: 500m}}`, "limits[0].maxLimitRequestRatio: cpu: 500m is under 1"},
	} {
		src := limitRangeSrc(c.items, gpu)
		if c.items == "" {
			src = strings.Replace(src, "limits: []", `limits: "all"`, 1)
		}
		res := build(t, src, Options{})
		if len(res.Errors) != 1 || res.Errors[0].Line != 5 || !strings.Contains(res.Errors[0].Message, c.want) {
			t.Errorf("%s: errors %v, want %q at line 5", c.items, res.Errors, c.want)
		}
		if len(res.Warnings) > 0 || one(t, res).Pod.Requested != 2 {
			t.Errorf("%s: warnings %v, resources %+v", c.items, res.Warnings, res.Resources)
		}
	}
}

// What a LimitRange fills in is what quotas count: a CPU quota counts the default requests, and
// a BestEffort scope no longer matches pods it gives CPU.
func TestLimitRangeDefaultsCountInQuotas(t *testing.T) {
	lr := "apiVersion: v1\nkind: LimitRange\nmetadata: {name: lr, namespace: ml}\nspec:\n  limits: [{type: Container, defaultRequest: {cpu: \"2\"}}]\n---\n"
	noCPU := func(src string) string { return strings.Replace(src, `requests: {cpu: "1"}, `, "", 1) }
	res := buildWarning(t, "requests.cpu", lr+noCPU(quotaSrc("  hard: {requests.cpu: \"8\"}\n", "ml/a 1 1 10")), "")
	oneCapped(t, "requests.cpu", res, 4, "maxReplicas of HorizontalPodAutoscaler/ml/a", "ResourceQuota/ml/gpus (requests.cpu: 8)")
	// A quota on limits admits the pods a LimitRange gives limits; without it, it refuses them.
	limits := strings.Replace(lr, `defaultRequest: {cpu: "2"}`, `default: {cpu: "2"}`, 1)
	res = buildWarning(t, "limits.cpu", limits+quotaSrc("  hard: {limits.cpu: \"8\"}\n", "ml/a 1 1 10"), "")
	oneCapped(t, "limits.cpu", res, 4, "maxReplicas of HorizontalPodAutoscaler/ml/a", "ResourceQuota/ml/gpus (limits.cpu: 8)")
	buildWarning(t, "no LimitRange", quotaSrc("  hard: {limits.cpu: \"8\"}\n", "ml/a 1 1 10"), `must specify limits.cpu`)
	res = buildWarning(t, "BestEffort", lr+noCPU(quotaSrc("  scopes: [BestEffort]\n  hard: {pods: \"2\"}\n", "ml/a 1 1 10")), "")
	oneCapped(t, "BestEffort", res, 10, "maxReplicas of HorizontalPodAutoscaler/ml/a", "")
}
