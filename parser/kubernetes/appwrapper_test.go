package kubernetes

import (
	"strings"
	"testing"
)

// An AppWrapper's components are read as the kinds they wrap, or through the pod sets they
// declare; the wrapped object's labels reach the pods, and a component that is neither is an
// error at its line.
func TestAppWrapper(t *testing.T) {
	src := `apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: ft
  namespace: research
  labels: {kueue.x-k8s.io/queue-name: team-a, team: research}
spec:
  components:
    - template:
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata:
          name: llama-ft
          labels: {project: llama}
          annotations: {gpuguard.dev/profile: llama-8b}
        spec:
          pytorchReplicaSpecs:
            Master:
              replicas: 1
              template:
                spec:
                  nodeSelector: {node.kubernetes.io/instance-type: p4d.24xlarge}
                  containers: [{name: pytorch, resources: {limits: {nvidia.com/gpu: 8}}}]
            Worker:
              replicas: 3
              template:
                spec:
                  nodeSelector: {node.kubernetes.io/instance-type: p4d.24xlarge}
                  containers: [{name: pytorch, resources: {limits: {nvidia.com/gpu: 8}}}]
    - podSets:
        - replicas: 2
          path: template.spec.workers[1].template
      template:
        apiVersion: example.com/v1
        kind: Trainer
        metadata: {name: custom}
        spec:
          workers:
            - template: {spec: {containers: [{name: cpu}]}}
            - template:
                spec:
                  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}
                  containers: [{name: gpu, resources: {limits: {nvidia.com/gpu: 1}}}]
    - template:
        apiVersion: v1
        kind: Service
        metadata: {name: svc}
        spec: {ports: [{port: 80}]}
      podSets: []
`
	res := build(t, src, Options{})
	if len(res.Errors) != 1 || res.Errors[0].Line != 45 || !strings.Contains(res.Errors[0].Message, "components[2].template is a Service (v1), which gpuguard does not read") {
		t.Fatalf("errors %+v", res.Errors)
	}
	want := map[string]int{
		`AppWrapper/research/ft["PyTorchJob/llama-ft/Master"]`: 1,
		`AppWrapper/research/ft["PyTorchJob/llama-ft/Worker"]`: 3,
		`AppWrapper/research/ft["Trainer/custom/podSet-0"]`:    2,
	}
	if len(res.Resources) != len(want) {
		t.Fatalf("resources %+v", res.Resources)
	}
	for _, r := range res.Resources {
		q, ok := want[r.Address]
		if !ok || r.Quantity != q {
			t.Errorf("%s: quantity %d, want %d (known: %v)", r.Address, r.Quantity, q, ok)
			continue
		}
		if r.Tags["team"] != "research" {
			t.Errorf("%s: tags %v lack the AppWrapper's labels", r.Address, r.Tags)
		}
		pytorch := strings.Contains(r.Address, "PyTorchJob")
		if pytorch != (r.Tags["project"] == "llama") || pytorch != (r.Profile == "llama-8b") {
			t.Errorf("%s: tags %v, profile %q: the wrapped object's labels and annotations belong to its pods only", r.Address, r.Tags, r.Profile)
		}
		if pytorch && (r.InstanceType != "p4d.24xlarge" || r.Pod.Requested != 8) || !pytorch && (r.InstanceType != "g5.xlarge" || r.Pod.Requested != 1) {
			t.Errorf("%s: %s with %d GPUs a pod", r.Address, r.InstanceType, r.Pod.Requested)
		}
	}
	for path, msg := range map[string]string{
		"spec.template":                     "does not start at the component's template",
		"template.spec.workers[7].template": "no element [7]",
		"template.spec.missing":             "no field missing",
		"template.spec.workers[0":           "unclosed [",
		"template.spec.workers":             "is not a pod template",
	} {
		bad := strings.Replace(src, "template.spec.workers[1].template", path, 1)
		res := build(t, bad, Options{})
		found := false
		for _, e := range res.Errors {
			found = found || strings.Contains(e.Message, "podSets[0]") && strings.Contains(e.Message, msg)
		}
		if !found {
			t.Errorf("path %q: errors %v, want %q", path, res.Errors, msg)
		}
	}
}

// Workloads that hold workloads nest only so deep: a YAML alias that holds the object it is in
// is an error at its line, not a stack overflow. A wrapped AppWrapper's readable components are
// still read beside its broken ones.
func TestEmbeddedWorkloadsNestOnlySoDeep(t *testing.T) {
	for name, src := range map[string]string{
		"appwrapper": "apiVersion: workload.codeflare.dev/v1beta2\nkind: AppWrapper\nmetadata: {name: x, namespace: ml}\nspec: &s\n  components:\n    - template:\n        apiVersion: workload.codeflare.dev/v1beta2\n        kind: AppWrapper\n        metadata: {name: y}\n        spec: *s\n",
		"katib":      "apiVersion: kubeflow.org/v1beta1\nkind: Experiment\nmetadata: {name: x, namespace: ml}\nspec: &s\n  trialTemplate:\n    trialSpec:\n      apiVersion: kubeflow.org/v1beta1\n      kind: Experiment\n      metadata: {name: y}\n      spec: *s\n",
	} {
		res := build(t, src, Options{})
		if len(res.Resources) != 0 || len(res.Errors) != 1 || res.Errors[0].Line != 7 || !strings.Contains(res.Errors[0].Message, "nested more than 8 deep") {
			t.Errorf("%s: resources %+v, errors %+v", name, res.Resources, res.Errors)
		}
	}
	src := `apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: outer, namespace: ml}
spec:
  components:
    - template:
        apiVersion: workload.codeflare.dev/v1beta2
        kind: AppWrapper
        metadata: {name: inner}
        spec:
          components:
            - template:
                apiVersion: batch/v1
                kind: Job
                metadata: {name: j}
                spec: {template: {spec: ` + g5Pod + `}}
            - template: [not, an, object]
`
	res := build(t, src, Options{})
	if len(res.Resources) != 1 || res.Resources[0].Address != `AppWrapper/ml/outer["AppWrapper/inner/Job/j"]` {
		t.Errorf("resources %+v", res.Resources)
	}
	if len(res.Errors) != 1 || res.Errors[0].Line != 17 || !strings.Contains(res.Errors[0].Message, "components[1].template is not an object") {
		t.Errorf("errors %+v", res.Errors)
	}
}

// A held workload that is not an object is said so at its line, by either reader.
func TestEmbeddedWorkloadMustBeAnObject(t *testing.T) {
	res := build(t, "apiVersion: kubeflow.org/v1beta1\nkind: Experiment\nmetadata: {name: x, namespace: ml}\nspec:\n  trialTemplate:\n    trialSpec: \"a string\"\n", Options{})
	if len(res.Errors) != 1 || res.Errors[0].Line != 6 || !strings.Contains(res.Errors[0].Message, "trialSpec is not an object") {
		t.Errorf("errors %+v", res.Errors)
	}
}
