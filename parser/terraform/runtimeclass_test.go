package terraform

import (
	"strings"
	"testing"
)

// The Kubernetes provider's RuntimeClass (kubernetes_runtime_class_v1, its handler only) is
// among the classes a typed workload's runtime_class_name finds; a kubernetes_manifest's
// RuntimeClass adds its pod overhead to the pods' requests, as a manifest's does.
func TestRuntimeClassFromTerraform(t *testing.T) {
	deployment := func(class string) string {
		return `resource "kubernetes_deployment_v1" "secure" {
  metadata {
    name      = "secure"
    namespace = "ml"
  }
  spec {
    replicas = 1
    template {
      metadata {}
      spec {
        runtime_class_name = "` + class + `"
        node_selector      = { "node.kubernetes.io/instance-type" = "g6.2xlarge" }
        container {
          name = "c"
          resources {
            requests = { cpu = "3" }
            limits   = { "nvidia.com/gpu" = 1 }
          }
        }
      }
    }
  }
}
`
	}
	typed := `resource "kubernetes_runtime_class_v1" "kata" {
  metadata { name = "kata" }
  handler = "kata-qemu"
}
`
	manifest := `resource "kubernetes_manifest" "kata_gpu" {
  manifest = {
    apiVersion = "node.k8s.io/v1"
    kind       = "RuntimeClass"
    metadata   = { name = "kata-gpu" }
    handler    = "kata-qemu-nvidia-gpu"
    overhead   = { podFixed = { cpu = "1", memory = "4Gi" } }
  }
}
`
	absent := "its pods run under RuntimeClass %s, which is not among the files read"
	for _, c := range []struct {
		name, src, class string
		cpu              float64
		note, notNote    string
	}{
		{"a typed class", typed + deployment("kata"), "kata", 3, "", "RuntimeClass"},
		{"a manifest's class", manifest + deployment("kata-gpu"), "kata-gpu", 4, "RuntimeClass/kata-gpu adds a pod overhead of cpu 1, memory 4Gi to each of its pods", ""},
		{"a class not declared", typed + deployment("gvisor"), "gvisor", 3, strings.Replace(absent, "%s", "gvisor", 1), ""},
	} {
		res := parseHCL(t, c.src, Options{})
		if len(res.Errors) > 0 {
			t.Fatalf("%s: errors %v", c.name, res.Errors)
		}
		r := byAddress(t, res)["kubernetes_deployment_v1.secure"]
		if r.Pod == nil || r.Pod.CPU != c.cpu {
			t.Errorf("%s: pod %+v, want %g CPUs", c.name, r.Pod, c.cpu)
			continue
		}
		notes := strings.Join(r.Notes, "\n")
		if !strings.Contains(notes, c.note) || c.notNote != "" && strings.Contains(notes, c.notNote) {
			t.Errorf("%s: notes %q, want %q", c.name, notes, c.note)
		}
	}
}
