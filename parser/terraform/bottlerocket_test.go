package terraform

import (
	"fmt"
	"strings"
	"testing"
)

// An EKS node group of Bottlerocket nodes configures the NVIDIA device plugin Bottlerocket runs
// through its launch template's user_data: the pods on the group share its GPUs as the settings
// say (ahead of a device plugin the configuration deploys), and MIG settings split the group's
// GPUs into the slice named for their model. Other AMI types read no settings, and settings
// Bottlerocket refuses are an error at the launch template.
func TestBottlerocketDevicePlugin(t *testing.T) {
	stack := func(amiType, instanceType, settings, resource string) string {
		return fmt.Sprintf(`provider "aws" { region = "us-east-1" }
resource "aws_launch_template" "br" {
  name      = "br"
  user_data = base64encode(<<-EOT
    [settings.kubernetes]
    cluster-name = "c"
    %s
    EOT
  )
}
resource "aws_eks_node_group" "gpu" {
  cluster_name    = "c"
  node_group_name = "gpu"
  node_role_arn   = "arn"
  subnet_ids      = ["s"]
  ami_type        = %q
  instance_types  = [%q]
  launch_template {
    id      = aws_launch_template.br.id
    version = "$Latest"
  }
  scaling_config {
    desired_size = 1
    min_size     = 1
    max_size     = 1
  }
}
resource "helm_release" "nvdp" {
  name       = "nvdp"
  repository = "https://nvidia.github.io/k8s-device-plugin"
  chart      = "nvidia-device-plugin"
  values     = [yamlencode({ config = { map = { default = "version: v1\nsharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 8}]}}" } } })]
}
resource "kubernetes_deployment_v1" "infer" {
  metadata { name = "infer" }
  spec {
    replicas = 2
    template {
      metadata {}
      spec {
        node_selector = { "eks.amazonaws.com/nodegroup" = "gpu" }
        container {
          name = "c"
          resources { limits = { %q = 1 } }
        }
      }
    }
  }
}
`, strings.ReplaceAll(settings, "\n", "\n    "), amiType, instanceType, resource)
	}
	const timeSlicing = "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"time-slicing\"\n[settings.kubelet-device-plugins.nvidia.time-slicing]\nreplicas = 4\nrename-by-default = false"
	const mig = "[settings.kubelet-device-plugins.nvidia]\ndevice-partitioning-strategy = \"mig\"\nmig.profile = { \"a100.40gb\" = \"1g.5gb\", \"h100.80gb\" = \"3g.40gb\" }"
	for _, tc := range []struct {
		name, src string
		replicas  int
		partition string // the group's
		note      string // on the group, or on the deployment when replicas are
		err       string
	}{
		{"time-slicing", stack("BOTTLEROCKET_x86_64_NVIDIA", "g5.xlarge", timeSlicing, "nvidia.com/gpu"), 4, "",
			"settings.kubelet-device-plugins.nvidia in aws_launch_template.br's user_data, the Bottlerocket settings its nodes boot with, shares each GPU as 4 units of nvidia.com/gpu (time-slicing)", ""},
		{"MPS renamed by default", stack("BOTTLEROCKET_x86_64_NVIDIA", "g5.xlarge", "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"mps\"", "nvidia.com/gpu.shared"), 2, "",
			"shares each GPU as 2 units of nvidia.com/gpu.shared (mps)", ""},
		{"renamed: nvidia.com/gpu is not shared", stack("BOTTLEROCKET_x86_64_NVIDIA", "g5.xlarge", "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"mps\"", "nvidia.com/gpu"), 0, "", "", ""},
		{"not Bottlerocket: the configuration's plugin shares", stack("AL2023_x86_64_NVIDIA", "g5.xlarge", timeSlicing, "nvidia.com/gpu"), 8, "", "helm_release.nvdp's values", ""},
		{"no device plugin settings: the configuration's plugin shares", stack("BOTTLEROCKET_x86_64_NVIDIA", "g5.xlarge", "", "nvidia.com/gpu"), 8, "", "helm_release.nvdp's values", ""},
		{"the plugin disabled: the configuration's plugin shares", stack("BOTTLEROCKET_x86_64_NVIDIA", "g5.xlarge", "[settings.kubelet-device-plugins.nvidia]\nenabled = false\ndevice-sharing-strategy = \"mps\"", "nvidia.com/gpu"), 8, "",
			"sets enabled = false: Bottlerocket runs no NVIDIA device plugin of its own", ""},
		{"MIG on A100 40GB", stack("BOTTLEROCKET_x86_64_NVIDIA", "p4d.24xlarge", mig, "nvidia.com/gpu"), 8, "1g.5gb",
			"GPUs are partitioned into MIG slices of 1g.5gb (settings.kubelet-device-plugins.nvidia in aws_launch_template.br's user_data: device-partitioning-strategy = \"mig\", mig.profile)", ""},
		{"MIG naming another model", stack("BOTTLEROCKET_x86_64_NVIDIA", "p4de.24xlarge", mig, "nvidia.com/gpu"), 8, "",
			"asks for MIG, but mig.profile names no slice for a100.80gb, the GPUs of p4de.24xlarge: the GPUs are judged whole", ""},
		{"a strategy Bottlerocket refuses", stack("BOTTLEROCKET_x86_64_NVIDIA", "g5.xlarge", "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"timeslicing\"", "nvidia.com/gpu"), 8, "",
			"cannot be read: how its device plugin shares or splits the GPUs is not known",
			"main.tf:2: aws_launch_template.br: user_data: settings.kubelet-device-plugins.nvidia.device-sharing-strategy is timeslicing: Bottlerocket takes none, time-slicing or mps"},
		{"not TOML", stack("BOTTLEROCKET_x86_64_NVIDIA", "g5.xlarge", "[settings.kubelet-device-plugins.nvidia\nreplicas = 4", "nvidia.com/gpu"), 8, "", "", "main.tf:2: aws_launch_template.br: user_data: not TOML Bottlerocket reads:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseHCL(t, tc.src, Options{})
			if !oneOrNone(res.Errors, tc.err) {
				t.Fatalf("errors %v, want %q", res.Errors, tc.err)
			}
			got := byAddress(t, res)
			group, infer := got["aws_eks_node_group.gpu"], got["kubernetes_deployment_v1.infer"]
			if infer.Pod == nil || group.Address == "" {
				t.Fatalf("resources %v", got)
			}
			if infer.Pod.SharedReplicas != tc.replicas || group.GPUPartition != tc.partition {
				t.Errorf("pods shared by %d, group partition %q; want %d, %q; notes %q", infer.Pod.SharedReplicas, group.GPUPartition, tc.replicas, tc.partition, infer.Notes)
			}
			// The group keeps its nodes' own config for pods read beside the configuration.
			if own := group.NodeLabels.DevicePlugin; strings.Contains(tc.note, "the Bottlerocket settings its nodes boot with") &&
				(own == nil || !strings.Contains(own.Source, "user_data")) {
				t.Errorf("the group's device plugin config %+v, want its user data's", own)
			}
			if notes := strings.Join(append(group.Notes, infer.Notes...), "\n"); tc.note != "" && !strings.Contains(notes, tc.note) {
				t.Errorf("notes %q, want %q", notes, tc.note)
			}
		})
	}
}

// terraform-aws-modules/eks writes a Bottlerocket node group's bootstrap_extra_args into the
// user data of the launch template it makes: gpuguard's stand-in does too, so the device plugin
// settings there share the group's GPUs. Another AMI type, or no custom launch template, reads
// none.
func TestBottlerocketEKSModule(t *testing.T) {
	call := func(group string) string {
		return `provider "aws" { region = "us-east-1" }
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 21.0"
  eks_managed_node_groups = {
    gpu = {
      instance_types = ["g6.xlarge"]
      labels         = { pool = "gpu" }
      ` + group + `
      bootstrap_extra_args = <<-EOT
        [settings.kubelet-device-plugins.nvidia]
        device-sharing-strategy = "mps"
        [settings.kubelet-device-plugins.nvidia.mps]
        replicas = 3
        rename-by-default = false
      EOT
    }
  }
}
resource "kubernetes_deployment_v1" "infer" {
  metadata { name = "infer" }
  spec {
    template {
      metadata {}
      spec {
        node_selector = { pool = "gpu" }
        container {
          name = "c"
          resources { limits = { "nvidia.com/gpu" = 1 } }
        }
      }
    }
  }
}
`
	}
	for _, tc := range []struct {
		name, group string
		replicas    int
	}{
		{"Bottlerocket", `ami_type = "BOTTLEROCKET_x86_64_NVIDIA"`, 3},
		{"AL2023", `ami_type = "AL2023_x86_64_NVIDIA"`, 0},
		{"no custom launch template", "ami_type = \"BOTTLEROCKET_x86_64_NVIDIA\"\n      use_custom_launch_template = false", 0},
	} {
		res := parseHCL(t, call(tc.group), Options{})
		if len(res.Errors) > 0 {
			t.Fatalf("%s: errors %v", tc.name, res.Errors)
		}
		got := byAddress(t, res)
		infer := got["kubernetes_deployment_v1.infer"]
		if infer.Pod == nil || infer.Pod.SharedReplicas != tc.replicas {
			t.Errorf("%s: pods %+v, want shared by %d; notes %q", tc.name, infer.Pod, tc.replicas, infer.Notes)
		}
		if tc.replicas > 0 && !strings.Contains(strings.Join(infer.Notes, "\n"), `in module.eks.module.eks_managed_node_group["gpu"].aws_launch_template.this[0]'s user_data`) {
			t.Errorf("%s: notes %q", tc.name, infer.Notes)
		}
	}
}
