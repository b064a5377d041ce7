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
