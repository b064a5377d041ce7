package kubernetes

import (
	"strings"
	"testing"
)

// An NVIDIA Dynamo graph in both API versions: v1alpha1's gpu shorthand becomes nvidia.com/gpu
// (or its gpuType), a multinode component runs nodeCount pods a replica, autoscaling prices the
// floor with the maximum beside it, the graph's labels reach the pods, and the CPU frontend is
// not a GPU resource.
func TestDynamoGraphDeployment(t *testing.T) {
	src := `apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata:
  name: disagg
  namespace: dynamo
  labels: {team: ml}
spec:
  services:
    Frontend:
      componentType: frontend
      replicas: 2
      extraPodSpec:
        mainContainer: {image: runtime}
    Decode:
      replicas: 3
      resources:
        requests: {cpu: "8", memory: 64Gi}
        limits: {gpu: "1"}
      extraPodMetadata:
        labels: {project: chat}
      extraPodSpec:
        nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge}
        mainContainer: {image: runtime}
    Prefill:
      replicas: 1
      multinode: {nodeCount: 2}
      autoscaling: {enabled: true, minReplicas: 1, maxReplicas: 3}
      resources:
        limits: {gpu: "8"}
      extraPodSpec:
        nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}
    AMD:
      resources:
        limits: {gpu: "1", gpuType: amd.com/gpu}
---
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: agg, namespace: dynamo}
spec:
  components:
  - name: Frontend
    type: frontend
    podTemplate: {spec: {containers: [{name: main, image: runtime}]}}
  - name: Worker
    type: worker
    replicas: 2
    multinode: {nodeCount: 2}
    podTemplate:
      spec:
        nodeSelector: {node.kubernetes.io/instance-type: g6e.12xlarge}
        containers:
        - name: main
          resources: {limits: {nvidia.com/gpu: "4"}}
`
	res := build(t, src, Options{})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
	type want struct {
		instance      string
		qty, gpus     int64
		resource, tag string
		max           int
	}
	wants := map[string]want{
		`DynamoGraphDeployment/dynamo/disagg["Decode"]`:  {"g6.xlarge", 3, 1, "nvidia.com/gpu", "chat", 0},
		`DynamoGraphDeployment/dynamo/disagg["Prefill"]`: {"p5.48xlarge", 2, 8, "nvidia.com/gpu", "", 6},
		`DynamoGraphDeployment/dynamo/disagg["AMD"]`:     {"", 1, 1, "amd.com/gpu", "", 0},
		`DynamoGraphDeployment/dynamo/agg["Worker"]`:     {"g6e.12xlarge", 4, 4, "nvidia.com/gpu", "", 0},
	}
	if len(res.Resources) != len(wants) {
		t.Fatalf("%d resources, want %d: %+v", len(res.Resources), len(wants), res.Resources)
	}
	for _, r := range res.Resources {
		w, ok := wants[r.Address]
		if !ok {
			t.Errorf("unexpected %s", r.Address)
			continue
		}
		max := 0
		if r.ScaleMax != nil {
			max = r.ScaleMax.Quantity
		}
		if r.InstanceType != w.instance || int64(r.Quantity) != w.qty || r.Pod == nil || r.Pod.Requested != w.gpus || r.Pod.Resource != w.resource || max != w.max {
			t.Errorf("%s: %s ×%d, pod %+v, max %d; want %s ×%d of %d %s, max %d", r.Address, r.InstanceType, r.Quantity, r.Pod, max, w.instance, w.qty, w.gpus, w.resource, w.max)
		}
		if strings.Contains(r.Address, "disagg") && (r.Tags["team"] != "ml" || r.Tags["project"] != w.tag) {
			t.Errorf("%s: labels %v, want the graph's team=ml and project=%q", r.Address, r.Tags, w.tag)
		}
	}
}

// A kind gpuguard does not read that asks for GPUs in an operator's shorthand (resources with
// gpu: N) is a warning like one asking for nvidia.com/gpu; a count of zero, or a gpu key that
// is not a count, is not.
func TestUnknownKindGPUShorthandIsAWarning(t *testing.T) {
	src := `apiVersion: serving.example.ai/v1
kind: ModelDeployment
metadata: {name: m, namespace: ml}
spec:
  runners:
    - name: big
      resources:
        limits: {gpu: "2", cpu: "8"}
---
apiVersion: serving.example.ai/v1
kind: ModelDeployment
metadata: {name: cpu, namespace: ml}
spec:
  resources:
    limits: {gpu: "0"}
    requests: {gpus: {type: a100}}
`
	res := build(t, src, Options{})
	if len(res.Resources) != 0 || len(res.Warnings) != 1 || res.Warnings[0].Line != 8 ||
		!strings.Contains(res.Warnings[0].Message, "ModelDeployment/ml/m (serving.example.ai/v1) requests gpu, but gpuguard does not know how this kind runs its pods") {
		t.Fatalf("resources %+v, warnings %+v", res.Resources, res.Warnings)
	}
}
