package terraform

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// Node groups whose GPUs are split into MIG slices say which slice: GKE's gpu_partition_size (a
// MIG profile, also the label GKE puts on the nodes, which pods select), AKS's gpu_instance and
// ARM's gpuInstanceProfile (a GPU-instance profile). A group without a partition has none.
func TestGPUPartitions(t *testing.T) {
	res := parseHCL(t, `
resource "google_container_node_pool" "mig" {
  name       = "mig"
  cluster    = "c"
  location   = "us-central1-a"
  node_count = 2
  node_config {
    machine_type = "a2-highgpu-1g"
    guest_accelerator {
      type               = "nvidia-tesla-a100"
      count              = 1
      gpu_partition_size = "1g.5gb"
    }
  }
}

resource "google_container_node_pool" "whole" {
  name       = "whole"
  cluster    = "c"
  location   = "us-central1-a"
  node_count = 1
  node_config {
    machine_type = "a2-highgpu-1g"
  }
}

resource "google_container_node_pool" "shared" {
  name       = "shared"
  cluster    = "c"
  location   = "us-central1-a"
  node_count = 1
  node_config {
    machine_type = "g2-standard-8"
    guest_accelerator {
      type  = "nvidia-l4"
      count = 1
      gpu_sharing_config {
        gpu_sharing_strategy       = "TIME_SHARING"
        max_shared_clients_per_gpu = 4
      }
    }
  }
}

resource "google_container_cluster" "inline" {
  name     = "inline"
  location = "us-central1-a"
  node_pool {
    name       = "sliced"
    node_count = 1
    node_config {
      machine_type = "a3-highgpu-8g"
      labels       = { team = "ml" }
      guest_accelerator {
        type               = "nvidia-h100-80gb"
        count              = 8
        gpu_partition_size = "3g.40gb"
      }
    }
  }
}

resource "azurerm_kubernetes_cluster_node_pool" "mig" {
  name                  = "mig"
  kubernetes_cluster_id = "/subscriptions/0/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks"
  vm_size               = "Standard_NC24ads_A100_v4"
  node_count            = 1
  gpu_instance          = "MIG2g"
}

resource "azapi_resource" "mig" {
  type      = "Microsoft.ContainerService/managedClusters/agentPools@2025-05-01"
  name      = "mig"
  parent_id = "/subscriptions/0/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/aks"
  body = {
    properties = {
      vmSize             = "Standard_NC24ads_A100_v4"
      count              = 1
      gpuInstanceProfile = "MIG1g"
    }
  }
}
`, Options{})
	got := byAddress(t, res)
	for addr, want := range map[string]string{
		"google_container_node_pool.mig":                      "1g.5gb",
		"google_container_node_pool.whole":                    "",
		"google_container_node_pool.shared":                   "",
		`google_container_cluster.inline.node_pool["sliced"]`: "3g.40gb",
		"azurerm_kubernetes_cluster_node_pool.mig":            "MIG2g",
		"azapi_resource.mig":                                  "MIG1g",
	} {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s not found", addr)
			continue
		}
		if r.GPUPartition != want {
			t.Errorf("%s: partition %q, want %q", addr, r.GPUPartition, want)
		}
		if want != "" && !strings.Contains(strings.Join(r.Notes, "\n"), "MIG slices") {
			t.Errorf("%s: no note says its GPUs are split: %q", addr, r.Notes)
		}
		// GKE labels the nodes with the slice; AKS does not.
		label := ""
		if r.NodeLabels != nil {
			label = r.NodeLabels.Labels[kubernetes.LabelGKEGPUPartition]
		}
		if wantLabel := want; strings.HasPrefix(addr, "azure") || strings.HasPrefix(addr, "azapi") {
			if label != "" {
				t.Errorf("%s: GKE's partition label %q on an AKS pool", addr, label)
			}
		} else if label != wantLabel {
			t.Errorf("%s: node label %s=%q, want %q", addr, kubernetes.LabelGKEGPUPartition, label, wantLabel)
		}
	}
	// A pool whose GPUs are time-shared says by how many, and labels its nodes so.
	for addr, want := range map[string]int{"google_container_node_pool.shared": 4, "google_container_node_pool.whole": 0, "google_container_node_pool.mig": 0} {
		r := got[addr]
		if r.GPUSharedClients != want {
			t.Errorf("%s: shared by %d, want %d", addr, r.GPUSharedClients, want)
		}
		if l := r.NodeLabels.Labels[kubernetes.LabelGKESharedClients]; (want > 0) != (l == fmt.Sprint(want)) {
			t.Errorf("%s: node label %s=%q, want %d", addr, kubernetes.LabelGKESharedClients, l, want)
		}
		// GKE labels the strategy beside the count (TIME_SHARING is time-sharing).
		if l := r.NodeLabels.Labels[kubernetes.LabelGKESharingStrategy]; (want > 0) != (l == "time-sharing") {
			t.Errorf("%s: node label %s=%q", addr, kubernetes.LabelGKESharingStrategy, l)
		}
	}
	if l := got[`google_container_cluster.inline.node_pool["sliced"]`].NodeLabels; l == nil || l.Labels["team"] != "ml" {
		t.Errorf("the partition label replaced the pool's own labels: %+v", l)
	}
}

// migGroup is an EKS node group of p4de.24xlarge labelled with a MIG manager layout.
func migGroup(name, layout string) string {
	return fmt.Sprintf(`
resource "aws_eks_node_group" %q {
  cluster_name    = "c"
  node_group_name = %q
  node_role_arn   = "arn"
  subnet_ids      = ["s"]
  instance_types  = ["p4de.24xlarge"]
  labels          = { "nvidia.com/mig.config" = %q, team = "ml" }
  scaling_config {
    desired_size = 1
    min_size     = 1
    max_size     = 1
  }
}
`, name, name, layout)
}

// A node group labelled with a MIG layout of NVIDIA's GPU Operator (nvidia.com/mig.config) has its
// GPUs split as the MIG manager splits them: all-<profile> into that slice. A layout of no single
// slice is noted and leaves the GPUs whole, and a partition the group declares itself wins.
func TestMIGManagerLayouts(t *testing.T) {
	group := migGroup
	res := parseHCL(t, `provider "aws" { region = "us-east-1" }
`+group("sliced", "all-1g.10gb")+group("media", "all-3g.40gb.me")+group("balanced", "all-balanced")+group("off", "all-disabled")+group("custom", "custom-2x3g")+`
resource "google_container_node_pool" "gke" {
  name       = "gke"
  cluster    = "c"
  location   = "us-central1-a"
  node_count = 1
  node_config {
    machine_type = "a2-highgpu-1g"
    labels       = { "nvidia.com/mig.config" = "all-7g.40gb" }
    guest_accelerator {
      type               = "nvidia-tesla-a100"
      count              = 1
      gpu_partition_size = "1g.5gb"
    }
  }
}
`, Options{})
	got := byAddress(t, res)
	for addr, want := range map[string]struct{ partition, note string }{
		"aws_eks_node_group.sliced":      {"1g.10gb", "GPUs are partitioned into MIG slices of 1g.10gb (label nvidia.com/mig.config=all-1g.10gb, which the GPU Operator's MIG manager applies)"},
		"aws_eks_node_group.media":       {"3g.40gb", "GPUs are partitioned into MIG slices of 3g.40gb (label nvidia.com/mig.config=all-3g.40gb.me"},
		"aws_eks_node_group.balanced":    {"", "label nvidia.com/mig.config=all-balanced splits each GPU into a mix of slices, which pods ask for by name (nvidia.com/mig-<profile>): the GPUs are judged whole"},
		"aws_eks_node_group.off":         {"", ""},
		"aws_eks_node_group.custom":      {"", "label nvidia.com/mig.config=custom-2x3g is not one of the GPU Operator's default layouts (all-<profile>)"},
		"google_container_node_pool.gke": {"1g.5gb", "(gpu_partition_size)"},
	} {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s not found", addr)
			continue
		}
		notes := strings.Join(r.Notes, "\n")
		if r.GPUPartition != want.partition || want.note != "" && !strings.Contains(notes, want.note) || want.note == "" && strings.Contains(notes, "mig.config") {
			t.Errorf("%s: partition %q, notes %q; want %q with %q", addr, r.GPUPartition, r.Notes, want.partition, want.note)
		}
	}
}

// A node group's label may name a custom layout the configuration declares itself: in the values
// of its GPU Operator release (migManager.config.data), or in a mig-parted ConfigMap. The group's
// GPUs are split as that layout says, and the pods that run on it ask for its slices.
func TestMIGManagerCustomLayouts(t *testing.T) {
	group := migGroup
	res := parseHCL(t, `provider "aws" { region = "us-east-1" }
`+group("llm", "vllm-3g")+group("cm", "cm-2g")+group("redefined", "all-1g.10gb")+group("unknown", "nowhere")+`
resource "kubernetes_deployment_v1" "vllm" {
  metadata { name = "vllm" }
  spec {
    replicas = 4
    template {
      metadata {}
      spec {
        node_selector = { "eks.amazonaws.com/nodegroup" = "llm" }
        container {
          name = "c"
          resources { limits = { "nvidia.com/gpu" = 1 } }
        }
      }
    }
  }
}

resource "kubernetes_config_map_v1" "mig" {
  metadata {
    name      = "own-mig"
    namespace = "gpu-operator"
  }
  data = {
    "config.yaml" = "version: v1\nmig-configs:\n  cm-2g:\n    - devices: all\n      mig-enabled: true\n      mig-devices: {\"2g.20gb\": 3}\n"
  }
}

resource "helm_release" "gpu_operator" {
  name       = "gpu-operator"
  namespace  = "gpu-operator"
  repository = "https://helm.ngc.nvidia.com/nvidia"
  chart      = "gpu-operator"
  values = [yamlencode({ migManager = { config = { create = true, name = "custom-mig", data = <<-EOT
    vllm-3g:
      - devices: all
        mig-enabled: true
        mig-devices: {"3g.40gb": 2}
    all-1g.10gb:
      - devices: all
        mig-enabled: false
    EOT
  } } })]
}
`, Options{})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	got := byAddress(t, res)
	const fromRelease = "helm_release.gpu_operator's values (migManager.config.data, ConfigMap gpu-operator/custom-mig)"
	for addr, want := range map[string]struct{ partition, note string }{
		"aws_eks_node_group.llm":        {"3g.40gb", "GPUs are partitioned into MIG slices of 3g.40gb (label nvidia.com/mig.config=vllm-3g, which the GPU Operator's MIG manager applies, as " + fromRelease + " declares it)"},
		"aws_eks_node_group.cm":         {"2g.20gb", "(label nvidia.com/mig.config=cm-2g, which the GPU Operator's MIG manager applies, as the mig-parted config in ConfigMap gpu-operator/own-mig (key config.yaml) declares it)"},
		"aws_eks_node_group.redefined":  {"", "label nvidia.com/mig.config=all-1g.10gb names a layout that " + fromRelease + " declares with MIG disabled: the GPUs are whole"},
		"aws_eks_node_group.unknown":    {"", "label nvidia.com/mig.config=nowhere is not one of the GPU Operator's default layouts"},
		"kubernetes_deployment_v1.vllm": {"", "aws_eks_node_group.llm labels its nodes nvidia.com/mig.config=vllm-3g: the GPU Operator's MIG manager splits their GPUs into 3g.40gb slices (as " + fromRelease + " declares it)"},
	} {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s not found", addr)
			continue
		}
		notes := strings.Join(r.Notes, "\n")
		if r.GPUPartition != want.partition || !strings.Contains(notes, want.note) {
			t.Errorf("%s: partition %q, notes %q; want %q with %q", addr, r.GPUPartition, r.Notes, want.partition, want.note)
		}
	}
	if p := got["kubernetes_deployment_v1.vllm"].Pod; p == nil || p.MIGProfile != "3g.40gb" {
		t.Errorf("the deployment's pods: %+v, want 3g.40gb slices", p)
	}
}
