package terraform

import (
	"fmt"
	"strings"
	"testing"
)

// Kubernetes workloads in a plan: the typed resource's blocks come as JSON lists, the manifest's
// object as it is.
func TestKubernetesWorkloadsInAPlan(t *testing.T) {
	plan := `{"format_version":"1.2","planned_values":{"root_module":{"resources":[
{"address":"kubernetes_deployment_v1.x","mode":"managed","type":"kubernetes_deployment_v1","name":"x","values":{"metadata":[{"name":"x","namespace":"ml"}],"spec":[{"replicas":"2","template":[{"metadata":[{}],"spec":[{"node_selector":{"node.kubernetes.io/instance-type":"g5.xlarge"},"container":[{"name":"c","resources":[{"limits":{"nvidia.com/gpu":"1"}}]}]}]}]}]}},
{"address":"kubernetes_manifest.y","mode":"managed","type":"kubernetes_manifest","name":"y","values":{"manifest":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeSelector":{"node.kubernetes.io/instance-type":"g6.xlarge"},"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":2}}}]}}}}
]}}}`
	res := ParsePlan("plan.json", []byte(plan))
	var got []string
	for _, r := range res.Resources {
		got = append(got, fmt.Sprintf("%s %s %s x%d gpus=%d", r.Address, r.Type, r.InstanceType, r.Quantity, r.Pod.Requested))
	}
	want := "kubernetes_deployment_v1.x Deployment g5.xlarge x2 gpus=1,kubernetes_manifest.y Pod g6.xlarge x1 gpus=2"
	if strings.Join(got, ",") != want || len(res.Errors) != 0 {
		t.Fatalf("got %q, errors %+v\nwant %q", got, res.Errors, want)
	}
}

// A plan's Kubernetes objects are read together (an HPA declared by another resource sets the
// floor), and what is wrong in one is an error with the plan's name, not lost.
func TestKubernetesObjectsInAPlanAreReadTogether(t *testing.T) {
	plan := `{"format_version":"1.2","planned_values":{"root_module":{"resources":[
{"address":"kubernetes_manifest.d","mode":"managed","type":"kubernetes_manifest","name":"d","values":{"manifest":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ml"},"spec":{"replicas":1,"template":{"spec":{"nodeSelector":{"node.kubernetes.io/instance-type":"g5.xlarge"},"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}]}}}}}},
{"address":"kubernetes_manifest.hpa","mode":"managed","type":"kubernetes_manifest","name":"hpa","values":{"manifest":{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"d","namespace":"ml"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"minReplicas":4,"maxReplicas":8}}}},
{"address":"kubernetes_manifest.bad","mode":"managed","type":"kubernetes_manifest","name":"bad","values":{"manifest":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"lots"}}}]}}}}
]}}}`
	res := ParsePlan("plan.json", []byte(plan))
	if len(res.Resources) != 1 || res.Resources[0].Address != "kubernetes_manifest.d" || res.Resources[0].Quantity != 4 {
		t.Fatalf("resources %+v", res.Resources)
	}
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "kubernetes_manifest.bad: ") || !strings.Contains(res.Errors[0].Message, "lots") {
		t.Fatalf("errors %+v", res.Errors)
	}
}

// A manifest known only at apply is said, not skipped in silence.
func TestUnknownManifestIsAWarning(t *testing.T) {
	src := "data \"http\" \"m\" {\n  url = \"https://example.com/deploy.json\"\n}\nresource \"kubernetes_manifest\" \"m\" {\n  manifest = jsondecode(data.http.m.response_body)\n}\n"
	res := ParseSource("main.tf", []byte(src), Options{})
	if len(res.Resources) != 0 || len(res.Warnings) != 1 || res.Warnings[0].Line != 4 ||
		!strings.Contains(res.Warnings[0].Message, "kubernetes_manifest.m: the manifest cannot be read before apply (data.http.m") {
		t.Fatalf("resources %d, warnings %+v, errors %+v", len(res.Resources), res.Warnings, res.Errors)
	}
}

// A GPU count known only at apply lists the workload unresolved, with the reason, in both the
// manifest and the typed form: not dropped, not an error about a null quantity.
func TestUnknownGPUCountIsUnresolved(t *testing.T) {
	src := `variable "gpus" {}
resource "kubernetes_manifest" "u" {
  manifest = { apiVersion = "v1", kind = "Pod", metadata = { name = "u" }, spec = { containers = [{ name = "c", resources = { limits = { "nvidia.com/gpu" = var.gpus } } }] } }
}
resource "kubernetes_pod_v1" "t" {
  metadata { name = "t" }
  spec {
    container {
      name = "c"
      resources { limits = { "nvidia.com/gpu" = var.gpus } }
    }
  }
}
`
	res := ParseSource("main.tf", []byte(src), Options{})
	if len(res.Errors) != 0 || len(res.Resources) != 2 {
		t.Fatalf("resources %d, errors %+v", len(res.Resources), res.Errors)
	}
	for _, r := range res.Resources {
		var got []string
		for _, u := range r.Unresolved {
			got = append(got, u.Attribute+": "+u.Reason)
		}
		if !strings.Contains(strings.Join(got, "; "), "nvidia.com/gpu: var.gpus has no value") {
			t.Errorf("%s: unresolved %q", r.Address, got)
		}
	}
}
