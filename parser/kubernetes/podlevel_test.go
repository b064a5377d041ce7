package kubernetes

import (
	"strings"
	"testing"
)

// podLevelSrc is a Deployment ml/a of 2 pods on g6.12xlarge nodes, with the given pod-level
// resources (a flow mapping, "" for none) and containers (flow sequence entries).
func podLevelSrc(podResources, containers string) string {
	s := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: ml}\nspec:\n  replicas: 2\n  template:\n    spec:\n" +
		"      nodeSelector: {node.kubernetes.io/instance-type: g6.12xlarge}\n"
	if podResources != "" {
		s += "      resources: " + podResources + "\n"
	}
	return s + "      containers: [" + containers + "]\n"
}

// Pod-level resources are what the scheduler counts of a pod's CPU and memory, instead of what
// its containers add up to; a pod-level request left out is what the containers request, or
// the pod-level limit when none of them does. A pod's overhead counts on top of them.
func TestPodLevelResources(t *testing.T) {
	server := `{name: server, resources: {requests: {cpu: "2", memory: 8Gi}, limits: {nvidia.com/gpu: 1}}}`
	side := `{name: proxy}`
	for _, c := range []struct {
		name, src string
		cpu, mem  float64
		note      string
	}{
		{"a pod-level request", podLevelSrc(`{requests: {cpu: "12", memory: 96Gi}}`, server+", "+side), 12, 96,
			"pod-level resources (spec.resources, Kubernetes 1.34 and later) set each pod's request to cpu 12, memory 96Gi: counted instead of what its containers request"},
		{"a pod-level limit where no container requests", podLevelSrc(`{limits: {cpu: "6"}}`, `{name: server, resources: {limits: {nvidia.com/gpu: 1}}}, `+side), 6, 0,
			"set each pod's request to cpu 6"},
		{"a pod-level limit where containers request", podLevelSrc(`{limits: {cpu: "6", memory: 32Gi}}`, server+", "+side), 2, 8, "set each pod's request to cpu 2, memory 8Gi"},
		{"none", podLevelSrc("", server+", "+side), 2, 8, ""},
		{"with a RuntimeClass's overhead", "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata\noverhead: {podFixed: {cpu: 500m}}\n---\n" +
			strings.Replace(podLevelSrc(`{requests: {cpu: "12"}}`, server), "    spec:\n", "    spec:\n      runtimeClassName: kata\n", 1), 12.5, 8, "set each pod's request to cpu 12"},
	} {
		checkPodAsks(t, c.name, c.src, c.cpu, c.mem, c.note, "pod-level")
	}
}

// The API server refuses pods whose pod-level resources name another resource, whose
// pod-level request passes its limit, whose containers request more together, or one of whose
// containers' limits passes the pod's: a warning, priced as declared.
func TestPodLevelResourcesRefused(t *testing.T) {
	server := `{name: server, resources: {requests: {cpu: "2"}, limits: {nvidia.com/gpu: 1, cpu: "8"}}}`
	refused := "Deployment/ml/a: the API server refuses its pods, so none of them run: "
	for _, c := range []struct{ name, src, warning string }{
		{"a GPU at the pod level", podLevelSrc(`{limits: {nvidia.com/gpu: 1}}`, server),
			refused + "its pod-level resources name nvidia.com/gpu, but only cpu, memory and hugepages may be set for the pod (priced as declared)"},
		{"a request past the limit", podLevelSrc(`{requests: {cpu: "10"}, limits: {cpu: "9"}}`, server),
			refused + "its pod-level cpu request of 10 passes its pod-level limit of 9"},
		{"containers past the request", podLevelSrc(`{requests: {cpu: "1"}}`, server),
			refused + "its containers request 2 cpu together, more than its pod-level request of 1"},
		{"a container's limit past the pod's", podLevelSrc(`{limits: {cpu: "4"}}`, server),
			refused + `container "server"'s cpu limit of 8 passes its pod-level limit of 4`},
	} {
		buildWarning(t, c.name, c.src, c.warning)
	}
	res := build(t, podLevelSrc(`{requests: {cpu: lots}}`, server), Options{})
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, `pod-level resources: cpu: quantity "lots"`) || res.Errors[0].Line != 9 {
		t.Errorf("errors %v, want the pod-level cpu at line 9", res.Errors)
	}
}

// A ResourceQuota and a LimitRange's Pod items count a pod's pod-level resources; the quota
// asks nothing of the containers of a pod that sets them.
func TestPodLevelResourcesCounted(t *testing.T) {
	hpa := "maxReplicas of HorizontalPodAutoscaler/ml/a"
	podLevel := func(src, resources string) string {
		return strings.Replace(src, "      containers:", "      resources: "+resources+"\n      containers:", 1)
	}
	checkCaps(t, hpa, true, []capCase{
		{"requests.cpu", podLevel(quotaSrc("  hard: {requests.cpu: \"12\"}\n", "ml/a 1 1 10"), `{requests: {cpu: "4"}}`), 3, "ResourceQuota/ml/gpus (requests.cpu: 12)", ""},
		{"limits.cpu, no container limit", podLevel(quotaSrc("  hard: {limits.cpu: \"12\"}\n", "ml/a 1 1 10"), `{limits: {cpu: "6"}}`), 2, "ResourceQuota/ml/gpus (limits.cpu: 12)", ""},
	})
	buildWarning(t, "a pod max", podLevel(limitRangeSrc(`{type: Pod, max: {cpu: "4"}}`, `{name: main, resources: {limits: {nvidia.com/gpu: 1}}}`), `{limits: {cpu: "6"}}`),
		"LimitRange/ml/lr refuses them: a pod's cpu limit of 6 passes the max of 4 a pod")
	buildWarning(t, "a pod min", podLevel(limitRangeSrc(`{type: Pod, min: {cpu: "2"}}`, `{name: main, resources: {limits: {nvidia.com/gpu: 1}}}`), `{requests: {cpu: "1"}}`),
		"LimitRange/ml/lr refuses them: a pod's cpu request of 1 is under the min of 2 a pod")
	// Kueue counts it in the quota of the flavor that covers CPU: 2 pods of 5 CPUs, not of 4.
	job := kueueJob("2", "8", "      resources: {requests: {cpu: \"5\"}}\n")
	checkQueued(t, "Kueue", kueueFlavors+strings.Replace(kueueQueue("16", "64", ""), "nominalQuota: 1000", "nominalQuota: 9", 1)+job, "",
		"", "no flavor of ClusterQueue train holds its pods' cpu (plain: 10 cpu asked, 9 at most)")
	buildWarning(t, "within", podLevel(limitRangeSrc(`{type: Pod, min: {cpu: "2"}, max: {cpu: "8"}}`, `{name: main, resources: {limits: {nvidia.com/gpu: 1}}}`), `{limits: {cpu: "6"}}`), "")
}
