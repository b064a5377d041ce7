package terraform

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
)

// A GPU node group whose settings start its nodes without the NVIDIA driver says which setting
// does (NoGPUDriver, which GPU012 reports); the clouds' defaults, settings known only at apply
// and GPUs that take another driver are not held against a group.
func TestGPUNodeGroupsWithoutADriver(t *testing.T) {
	eks := func(instanceType, amiType string) string {
		ami := ""
		if amiType != "" {
			ami = "\n  ami_type       = " + amiType
		}
		return `resource "aws_eks_node_group" "g" {
  cluster_name   = "c"
  instance_types = ["` + instanceType + `"]` + ami + `
  scaling_config {
    desired_size = 1
    min_size     = 1
    max_size     = 2
  }
}`
	}
	aks := func(size, extra string) string {
		return `resource "azurerm_kubernetes_cluster_node_pool" "p" {
  name                  = "gpu"
  kubernetes_cluster_id = "id"
  vm_size               = "` + size + `"
  node_count            = 1
` + extra + `
}`
	}
	gke := func(version string) string {
		return `resource "google_container_node_pool" "p" {
  name       = "gpu"
  cluster    = "c"
  location   = "us-central1-a"
  node_count = 1
  node_config {
    machine_type = "n1-standard-8"
    guest_accelerator {
      type  = "nvidia-tesla-t4"
      count = 1
      gpu_driver_installation_config {
        gpu_driver_version = "` + version + `"
      }
    }
  }
}`
	}
	cases := []struct {
		name, src, address string
		want               string // a part of NoGPUDriver, "" for none
	}{
		{"EKS, AL2023 standard AMI on an NVIDIA GPU", eks("g5.2xlarge", `"AL2023_x86_64_STANDARD"`), "aws_eks_node_group.g", `ami_type = "AL2023_x86_64_STANDARD", an EKS AMI type without the NVIDIA driver`},
		{"EKS, Bottlerocket without NVIDIA", eks("p5.48xlarge", `"BOTTLEROCKET_x86_64"`), "aws_eks_node_group.g", `"BOTTLEROCKET_x86_64"`},
		{"EKS, AL2 standard AMI", eks("g6.xlarge", `"AL2_x86_64"`), "aws_eks_node_group.g", `"AL2_x86_64"`},
		{"EKS, AL2023 NVIDIA AMI", eks("g5.2xlarge", `"AL2023_x86_64_NVIDIA"`), "aws_eks_node_group.g", ""},
		{"EKS, AL2 GPU AMI", eks("g5.2xlarge", `"AL2_x86_64_GPU"`), "aws_eks_node_group.g", ""},
		{"EKS, Bottlerocket NVIDIA on Graviton", eks("g5g.xlarge", `"BOTTLEROCKET_ARM_64_NVIDIA"`), "aws_eks_node_group.g", ""},
		{"EKS, the launch template's own image", eks("g5.2xlarge", `"CUSTOM"`), "aws_eks_node_group.g", ""},
		{"EKS, no AMI type: EKS picks it", eks("g5.2xlarge", ""), "aws_eks_node_group.g", ""},
		{"EKS, an AMI type known only at apply", "variable \"ami\" {\n  type = string\n}\n" + eks("g5.2xlarge", "var.ami"), "aws_eks_node_group.g", ""},
		{"EKS, AMD GPUs take no NVIDIA driver", eks("g4ad.xlarge", `"AL2023_x86_64_STANDARD"`), "aws_eks_node_group.g", ""},
		{"EKS, Inferentia takes the Neuron driver", eks("inf2.xlarge", `"AL2023_x86_64_STANDARD"`), "aws_eks_node_group.g", ""},
		{"AKS pool, gpu_driver None", aks("Standard_NC24ads_A100_v4", `  gpu_driver = "None"`), "azurerm_kubernetes_cluster_node_pool.p", `gpu_driver = "None"`},
		{"AKS pool, gpu_driver Install", aks("Standard_NC24ads_A100_v4", `  gpu_driver = "Install"`), "azurerm_kubernetes_cluster_node_pool.p", ""},
		{"AKS pool, the SkipGPUDriverInstall tag", aks("Standard_NC6s_v3", `  tags = { SkipGPUDriverInstall = "true" }`), "azurerm_kubernetes_cluster_node_pool.p", "the tag SkipGPUDriverInstall = true"},
		{"AKS pool, no setting", aks("Standard_NC6s_v3", ""), "azurerm_kubernetes_cluster_node_pool.p", ""},
		{"AKS default pool, gpu_driver None", `resource "azurerm_kubernetes_cluster" "c" {
  name     = "c"
  location = "westeurope"
  default_node_pool {
    name       = "gpu"
    vm_size    = "Standard_NC24ads_A100_v4"
    node_count = 1
    gpu_driver = "None"
  }
}`, "azurerm_kubernetes_cluster.c.default_node_pool", `gpu_driver = "None"`},
		{"GKE pool, installation disabled", gke("INSTALLATION_DISABLED"), "google_container_node_pool.p", "INSTALLATION_DISABLED"},
		{"GKE pool, latest driver", gke("LATEST"), "google_container_node_pool.p", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := parseHCL(t, tc.src, Options{})
			r, ok := byAddress(t, res)[tc.address]
			if !ok {
				t.Fatalf("no %s: %+v (errors %v)", tc.address, res.Resources, res.Errors)
			}
			if tc.want == "" && r.NoGPUDriver != "" || tc.want != "" && !strings.Contains(r.NoGPUDriver, tc.want) {
				t.Errorf("NoGPUDriver = %q, want %q", r.NoGPUDriver, tc.want)
			}
		})
	}
}

// The AMI type reaches a node group through terraform-aws-modules/eks's stand-in, from the
// group's own settings or the defaults every group shares, and a pool's gpu_driver_version
// through terraform-google-modules/kubernetes-engine's; a plan's node group is read the same way.
func TestGPUNodeGroupsWithoutADriverThroughModulesAndPlans(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"main.tf": `provider "aws" {
  region = "us-east-1"
}

module "eks" {
  source = "terraform-aws-modules/eks/aws"
  eks_managed_node_group_defaults = {
    ami_type = "AL2023_x86_64_STANDARD"
  }
  eks_managed_node_groups = {
    gpu   = { instance_types = ["g6e.xlarge"] }
    fixed = { instance_types = ["g6e.xlarge"], ami_type = "AL2023_x86_64_NVIDIA" }
  }
}

module "gke" {
  source     = "terraform-google-modules/kubernetes-engine/google"
  project_id = "p"
  name       = "ml"
  region     = "us-central1"
  node_pools = [
    { name = "t4", machine_type = "n1-standard-8", accelerator_type = "nvidia-tesla-t4", accelerator_count = 1, node_count = 1, gpu_driver_version = "INSTALLATION_DISABLED" },
    { name = "l4", machine_type = "n1-standard-8", accelerator_type = "nvidia-tesla-t4", accelerator_count = 1, node_count = 1, gpu_driver_version = "LATEST" },
  ]
}
`})
	res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	got := map[string]string{}
	for _, r := range res.Resources {
		got[r.Address] = r.NoGPUDriver
	}
	gpu := `module.eks.module.eks_managed_node_group["gpu"].aws_eks_node_group.this[0]`
	fixed := `module.eks.module.eks_managed_node_group["fixed"].aws_eks_node_group.this[0]`
	t4 := `module.gke.google_container_node_pool.pools["t4"]`
	if !strings.Contains(got[gpu], "AL2023_x86_64_STANDARD") || got[fixed] != "" || !strings.Contains(got[t4], "INSTALLATION_DISABLED") ||
		got[`module.gke.google_container_node_pool.pools["l4"]`] != "" || len(got) != 4 {
		t.Errorf("through the stand-in: %q", got)
	}

	plan := `{"format_version":"1.2",
"planned_values":{"root_module":{"resources":[
  {"address":"aws_eks_node_group.a","mode":"managed","type":"aws_eks_node_group","name":"a","values":{"node_group_name":"gpu","instance_types":["p4d.24xlarge"],"ami_type":"BOTTLEROCKET_x86_64","scaling_config":[{"desired_size":1,"max_size":1,"min_size":1}]}}]}},
"resource_changes":[
  {"address":"aws_eks_node_group.a","mode":"managed","type":"aws_eks_node_group","name":"a","change":{"actions":["create"],"after":{"node_group_name":"gpu","instance_types":["p4d.24xlarge"],"ami_type":"BOTTLEROCKET_x86_64","scaling_config":[{"desired_size":1,"max_size":1,"min_size":1}]},"after_unknown":{}}}]}`
	pr := ParsePlan("plan.json", []byte(plan))
	if len(pr.Resources) != 1 || !strings.Contains(pr.Resources[0].NoGPUDriver, `"BOTTLEROCKET_x86_64"`) {
		t.Errorf("in a plan: %+v (errors %v)", pr.Resources, pr.Errors)
	}
}
