package terraform

import (
	"fmt"
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

// Self-managed node groups, and managed ones that boot their launch template's own image, pick
// the AMI by an SSM parameter or an AMI name: an EKS-optimized AMI without the NVIDIA driver is
// held against a GPU group only where the name says so for certain.
func TestGPUNodeGroupsBootingAnEKSAMIWithoutTheDriver(t *testing.T) {
	// An Auto Scaling group of one for each launch template.
	var groups strings.Builder
	for _, lt := range []string{"al2023", "al2023_nvidia", "bottlerocket_any", "bottlerocket_131", "by_family", "either", "literal", "amd"} {
		fmt.Fprintf(&groups, "resource \"aws_autoscaling_group\" %q {\n  desired_capacity = 1\n  max_size = 1\n  min_size = 1\n  launch_template { id = aws_launch_template.%s.id }\n}\n", lt, lt)
	}
	res := parseHCL(t, `
provider "aws" { region = "us-east-1" }
variable "k8s" { type = string }
variable "family" {
  type    = string
  default = "standard"
}
variable "gpu_image" { type = bool }

data "aws_ssm_parameter" "al2023" {
  name = "/aws/service/eks/optimized-ami/${var.k8s}/amazon-linux-2023/x86_64/standard/recommended/image_id"
}
data "aws_ssm_parameter" "al2023_nvidia" {
  name = "/aws/service/eks/optimized-ami/${var.k8s}/amazon-linux-2023/x86_64/nvidia/recommended/image_id"
}
data "aws_ssm_parameter" "bottlerocket_any" {
  name = "/aws/service/bottlerocket/aws-k8s-${var.k8s}/x86_64/latest/image_id"
}
data "aws_ssm_parameter" "bottlerocket_131" {
  name = "/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id"
}
locals {
  by_family = {
    standard = "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id"
    nvidia   = "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id"
  }
}
data "aws_ssm_parameter" "by_family" {
  count = 1
  name  = lookup(local.by_family, var.family, null)
}
data "aws_ami" "al2_131" {
  most_recent = true
  owners      = ["amazon"]
  filter {
    name   = "name"
    values = ["amazon-eks-node-1.31-v*"]
  }
}
data "aws_ami" "al2_any" {
  most_recent = true
  owners      = ["amazon"]
  filter {
    name   = "name"
    values = ["amazon-eks-node-${var.k8s}-v*"] # also the AL2023 NVIDIA AMI's name
  }
}

resource "aws_launch_template" "al2023" {
  image_id      = nonsensitive(data.aws_ssm_parameter.al2023.value)
  instance_type = "g6.xlarge"
}
resource "aws_launch_template" "al2023_nvidia" {
  image_id      = data.aws_ssm_parameter.al2023_nvidia.value
  instance_type = "g6.xlarge"
}
resource "aws_launch_template" "bottlerocket_any" {
  image_id      = data.aws_ssm_parameter.bottlerocket_any.value
  instance_type = "g6.xlarge"
}
resource "aws_launch_template" "bottlerocket_131" {
  image_id      = data.aws_ssm_parameter.bottlerocket_131.value
  instance_type = "g6.xlarge"
}
resource "aws_launch_template" "by_family" {
  image_id      = data.aws_ssm_parameter.by_family[0].value
  instance_type = "g6.xlarge"
}
resource "aws_launch_template" "either" {
  image_id      = var.gpu_image ? data.aws_ssm_parameter.al2023_nvidia.value : data.aws_ssm_parameter.al2023.value
  instance_type = "g6.xlarge"
}
resource "aws_launch_template" "literal" {
  image_id      = "ami-0123456789abcdef0"
  instance_type = "g6.xlarge"
}
resource "aws_launch_template" "amd" {
  image_id      = data.aws_ssm_parameter.al2023.value
  instance_type = "g4ad.xlarge"
}
resource "aws_launch_template" "no_type" {
  image_id = data.aws_ssm_parameter.al2023.value
}

`+groups.String()+`
resource "aws_instance" "al2_131" {
  ami           = data.aws_ami.al2_131.id
  instance_type = "p4d.24xlarge"
}
resource "aws_instance" "al2_any" {
  ami           = data.aws_ami.al2_any.id
  instance_type = "p4d.24xlarge"
}
resource "aws_eks_node_group" "own_image" {
  cluster_name   = "ml"
  instance_types = ["g6e.xlarge"]
  launch_template {
    id      = aws_launch_template.no_type.id
    version = "$Latest"
  }
  scaling_config {
    desired_size = 1
    max_size     = 1
    min_size     = 1
  }
}
resource "aws_eks_node_group" "ami_type_wins" {
  cluster_name   = "ml"
  instance_types = ["g6e.xlarge"]
  ami_type       = "AL2023_x86_64_NVIDIA"
  launch_template {
    id      = aws_launch_template.no_type.id
    version = "$Latest"
  }
  scaling_config {
    desired_size = 1
    max_size     = 1
    min_size     = 1
  }
}
`, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	got := byAddress(t, res)
	al2023 := `the launch template's image_id is data.aws_ssm_parameter.al2023 ("/aws/service/eks/optimized-ami/*/amazon-linux-2023/x86_64/standard/recommended/image_id"), an EKS-optimized Amazon Linux 2023 standard AMI, without the NVIDIA driver`
	want := map[string]string{
		"aws_autoscaling_group.al2023":           al2023,
		"aws_autoscaling_group.al2023_nvidia":    "",
		"aws_autoscaling_group.bottlerocket_any": "", // aws-k8s-<version>-nvidia is the NVIDIA variant
		"aws_autoscaling_group.bottlerocket_131": `the launch template's image_id is data.aws_ssm_parameter.bottlerocket_131 ("/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id"), a Bottlerocket AMI for Kubernetes, without the NVIDIA driver`,
		"aws_autoscaling_group.by_family":        `the launch template's image_id is data.aws_ssm_parameter.by_family ("/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id"), an EKS-optimized Amazon Linux 2023 standard AMI, without the NVIDIA driver`,
		"aws_autoscaling_group.either":           "", // the NVIDIA image, or not: known only at apply
		"aws_autoscaling_group.literal":          "",
		"aws_autoscaling_group.amd":              "", // AMD GPUs
		"aws_instance.al2_131":                   `ami is data.aws_ami.al2_131 ("amazon-eks-node-1.31-v*"), an EKS-optimized Amazon Linux 2 AMI, without the NVIDIA driver`,
		"aws_instance.al2_any":                   "",
		"aws_eks_node_group.own_image":           al2023, // EKS boots the template's image when no ami_type is set
		"aws_eks_node_group.ami_type_wins":       "",
	}
	for addr, w := range want {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s: missing", addr)
			continue
		}
		if r.NoGPUDriver != w {
			t.Errorf("%s: NoGPUDriver %q, want %q", addr, r.NoGPUDriver, w)
		}
	}
}
