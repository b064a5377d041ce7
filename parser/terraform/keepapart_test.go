package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Deployment the Kubernetes provider declares, on a Karpenter NodePool a kubernetes_manifest
// declares, is capped per node by its topology_spread_constraint blocks as a manifest's pods
// are; and its notes name no line of the document converted from the block (the user's line is
// the block's). The same holds for a required anti-affinity, for the host's network, and for a
// required pod affinity that keeps the pods together.
func TestKarpenterSpreadFromTerraform(t *testing.T) {
	dir := t.TempDir()
	const pool = `resource "kubernetes_manifest" "gpu_pool" {
  manifest = {
    apiVersion = "karpenter.sh/v1"
    kind       = "NodePool"
    metadata   = { name = "gpu" }
    spec = { template = { spec = {
      requirements = [{ key = "node.kubernetes.io/instance-type", operator = "In", values = ["g6.12xlarge"] }]
      nodeClassRef = { group = "karpenter.k8s.aws", kind = "EC2NodeClass", name = "default" }
    } } }
  }
}
`
	// deployment declares 4 one-GPU pods; scheduling goes in the pod spec, ports in the container.
	deployment := func(name, scheduling, ports string) string {
		return `resource "kubernetes_deployment_v1" "` + name + `" {
  metadata {
    name      = "` + name + `"
    namespace = "serving"
  }
  spec {
    replicas = 4
    selector {
      match_labels = { app = "` + name + `" }
    }
    template {
      metadata {
        labels = { app = "` + name + `" }
      }
      spec {
` + scheduling + `
        container {
          name  = "vllm"
          image = "vllm/vllm-openai"
` + ports + `
          resources {
            limits = { "nvidia.com/gpu" = 1 }
          }
        }
      }
    }
  }
}
`
	}
	spread := `        topology_spread_constraint {
          max_skew           = 2
          topology_key       = "kubernetes.io/hostname"
          when_unsatisfiable = "DoNotSchedule"
          label_selector {
            match_labels = { app = "spread" }
          }
        }`
	anti := `        affinity {
          pod_anti_affinity {
            required_during_scheduling_ignored_during_execution {
              topology_key = "kubernetes.io/hostname"
              label_selector {
                match_labels = { app = "apart" }
              }
            }
          }
        }`
	port := `          port {
            container_port = 8000
          }`
	together := strings.NewReplacer("pod_anti_affinity", "pod_affinity", `"apart"`, `"together"`).Replace(anti)
	src := pool + deployment("spread", spread, "") + deployment("apart", anti, "") + deployment("hostnet", "        host_network = true", port) + deployment("together", together, "")
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rs := parseCleanly(t, dir)
	s, a := rs["kubernetes_deployment_v1.spread"], rs["kubernetes_deployment_v1.apart"]
	if s.Pod == nil || s.Pod.MaxPerNode != 2 || s.Pod.MaxPerNodeWhy != "its topologySpreadConstraints on kubernetes.io/hostname (maxSkew 2) count its own pods, and Karpenter, launching NodePool/gpu's nodes, counts the next node it can launch as holding none of them" {
		t.Errorf("spread: %+v", s.Pod)
	}
	if a.Pod == nil || a.Pod.MaxPerNode != 1 || a.Pod.MaxPerNodeWhy != "its required podAntiAffinity (topologyKey kubernetes.io/hostname) selects its own pods" {
		t.Errorf("anti-affinity: %+v", a.Pod)
	}
	if h := rs["kubernetes_deployment_v1.hostnet"]; h.Pod == nil || h.Pod.MaxPerNode != 1 || h.Pod.MaxPerNodeWhy != "its pods run on their node's network (hostNetwork), so its container vllm's port 8000 (containerPort) is a host port too, which two pods cannot both bind" {
		t.Errorf("host network: %+v", h.Pod)
	}
	if g := rs["kubernetes_deployment_v1.together"]; g.Pod == nil || g.Pod.Together != 4 || g.Pod.MaxPerNode != 0 ||
		g.Pod.TogetherWhy != "its required podAffinity (topologyKey kubernetes.io/hostname) selects its own pods, so its 4 pods run on the node the first lands on" {
		t.Errorf("pod affinity: %+v", g.Pod)
	}
	for _, r := range rs {
		if r.Pod != nil && strings.Contains(r.Pod.MaxPerNodeWhy+r.Pod.TogetherWhy, "line") {
			t.Errorf("%s names a line of the converted document: %q", r.Address, r.Pod.MaxPerNodeWhy)
		}
	}
}
