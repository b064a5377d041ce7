package terraform

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
)

func TestAdmittedMajor(t *testing.T) {
	const eks = "terraform-aws-modules/eks/aws"
	cases := []struct {
		source, version string
		major           int
		bounded         bool
	}{
		{eks, "~> 20.0", 20, true},
		{eks, "~> 20.8.5", 20, true},
		{eks, "~> 21", 21, true},
		{eks, "20.8.5", 20, true},
		{eks, "= 21.1.0", 21, true},
		{eks, "<= 20.37.2", 20, true},
		{eks, ">= 19, < 21", 20, true},      // stops before 21
		{eks, ">= 19, < 21.0.0", 20, true},  // the same
		{eks, "< 21.2", 21, true},           // 21.0 and 21.1 qualify
		{eks, ">= 20.0, ~> 21.0", 21, true}, // the least upper bound
		{eks, "~> 21.0, <= 20.9", 20, true}, // unsatisfiable, but nothing above 20
		{eks, "21.0.0-rc1", 21, true},       // a pre-release
		{eks, ">= 20", 0, false},            // the newest release
		{eks, "!= 20.1.0", 0, false},        // an exclusion bounds nothing
		{eks, "", 0, false},                 // no constraint: the newest release
		{eks, "~> twenty", 0, false},        // not a version
		{eks, "~> 20.0.0.1", 0, false},      // four parts
		{"git::https://github.com/terraform-aws-modules/terraform-aws-eks.git//modules/eks-managed-node-group?ref=v20.8.5", "", 20, true},
		{"github.com/terraform-aws-modules/terraform-aws-eks?ref=21.0.4", "", 21, true},
		{"git::https://github.com/terraform-aws-modules/terraform-aws-eks.git?ref=master", "", 0, false},
		{"git::https://github.com/terraform-aws-modules/terraform-aws-eks.git?ref=1f2e3d4", "", 0, false}, // a commit
		{"tfr:///terraform-aws-modules/eks/aws?version=21.3.1", "", 21, true},
		{"git::https://example.com/eks.git?depth=1&ref=v20.1.0", "", 20, true},
		{"git::https://example.com/eks.git?ref=v20.1.0", "~> 21.0", 21, true}, // the version argument wins
	}
	for _, c := range cases {
		major, bounded := admittedMajor(c.source, c.version)
		if major != c.major || bounded != c.bounded {
			t.Errorf("admittedMajor(%q, %q) = %d, %v; want %d, %v", c.source, c.version, major, bounded, c.major, c.bounded)
		}
	}
	if v := ModuleMajor(eks, ">= 20"); !v.IsNull() {
		t.Errorf("ModuleMajor unbounded = %#v, want null", v)
	}
	if v := ModuleMajor(eks, "~> 20.0"); v.IsNull() || v.AsBigFloat().String() != "20" {
		t.Errorf("ModuleMajor ~> 20.0 = %#v, want 20", v)
	}
}

// terraform-aws-modules/eks v21 made AL2023_x86_64_STANDARD the node groups' default ami_type
// (v20 left it to EKS, which picks an NVIDIA AMI for GPU instances): a GPU group that does not
// set ami_type starts without the driver from v21 on. The stand-in follows the version the call
// gets, and the finding says that the module's default, not the user, chose the AMI.
func TestEKSModuleAMITypeDefaultFollowsVersion(t *testing.T) {
	groups := `
  eks_managed_node_groups = {
    gpu    = { instance_types = ["g6.xlarge"] }
    nvidia = { instance_types = ["g6.xlarge"], ami_type = "AL2023_x86_64_NVIDIA" }
    own    = { instance_types = ["g6.xlarge"], ami_id = "ami-0123456789abcdef0" }
    set    = { instance_types = ["g6.xlarge"], ami_type = "AL2023_x86_64_STANDARD" }
  }
`
	const defaulted = `ami_type is not set, and the module's default since v21, "AL2023_x86_64_STANDARD", is an EKS AMI type without the NVIDIA driver`
	const set = `ami_type = "AL2023_x86_64_STANDARD", an EKS AMI type without the NVIDIA driver`
	cases := []struct {
		name, call string
		gpu        string // what the group without ami_type gets
	}{
		{"v20", `source = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"`, ""},
		{"v21", `source = "terraform-aws-modules/eks/aws"
  version = "~> 21.0"`, defaulted},
		{"newest release", `source = "terraform-aws-modules/eks/aws"`, defaulted},
		{"lower bound only", `source = "terraform-aws-modules/eks/aws"
  version = ">= 20.0"`, defaulted},
		// Unbounded, but written for v20: v21 rejects cluster_name and cluster_version.
		{"newest release, v20 arguments", `source = "terraform-aws-modules/eks/aws"
  cluster_name    = "ml"
  cluster_version = "1.31"`, ""},
		{"newest release, v20 cluster_version", `source = "terraform-aws-modules/eks/aws"
  version = ">= 19"
  cluster_version = "1.31"`, ""},
		{"newest release, v21 arguments", `source = "terraform-aws-modules/eks/aws"
  name               = "ml"
  kubernetes_version = "1.33"`, defaulted},
		{"a bound wins over the arguments", `source = "terraform-aws-modules/eks/aws"
  version      = "~> 21.0"
  cluster_name = "ml"`, defaulted},
		{"git ref v20", `source = "git::https://github.com/terraform-aws-modules/terraform-aws-eks.git?ref=v20.37.2"`, ""},
		{"git ref v21", `source = "git::https://github.com/terraform-aws-modules/terraform-aws-eks.git?ref=v21.3.1"`, defaulted},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			testutil.WriteFiles(t, root, map[string]string{"main.tf": "provider \"aws\" {\n  region = \"us-east-1\"\n}\n\nmodule \"eks\" {\n  " + c.call + "\n" + groups + "}\n"})
			res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
			if len(res.Errors) > 0 {
				t.Fatalf("errors: %v", res.Errors)
			}
			got := map[string]string{}
			for _, r := range res.Resources {
				got[strings.TrimSuffix(strings.TrimPrefix(r.Address, `module.eks.module.eks_managed_node_group["`), `"].aws_eks_node_group.this[0]`)] = r.NoGPUDriver
			}
			want := map[string]string{"gpu": c.gpu, "nvidia": "", "own": "", "set": set}
			if len(got) != len(want) {
				t.Fatalf("groups %q", got)
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: NoGPUDriver %q, want %q", k, got[k], w)
				}
			}
		})
	}

	// The submodule called on its own follows its own call's version.
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"main.tf": `provider "aws" {
  region = "us-east-1"
}

module "v20" {
  source         = "terraform-aws-modules/eks/aws//modules/eks-managed-node-group"
  version        = "20.37.2"
  name           = "old"
  instance_types = ["p5.48xlarge"]
}

module "v21" {
  source         = "terraform-aws-modules/eks/aws//modules/eks-managed-node-group"
  version        = "21.3.1"
  name           = "new"
  instance_types = ["p5.48xlarge"]
}

module "unbounded_v20" {
  source          = "terraform-aws-modules/eks/aws//modules/eks-managed-node-group"
  name            = "old2"
  cluster_version = "1.31"
  instance_types  = ["p5.48xlarge"]
}
`})
	res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	got := map[string]string{}
	for _, r := range res.Resources {
		got[r.Address] = r.NoGPUDriver
	}
	if len(got) != 3 || got["module.v20.aws_eks_node_group.this[0]"] != "" || got["module.v21.aws_eks_node_group.this[0]"] != defaulted ||
		got["module.unbounded_v20.aws_eks_node_group.this[0]"] != "" {
		t.Errorf("submodule calls: %q", got)
	}
}

// A self-managed node group boots the EKS-optimized AMI of its ami_type, read from the SSM
// parameter: AL2023 standard by default from v21, Amazon Linux 2 before, neither with the
// NVIDIA driver. The finding names the setting (or the default) that chose it.
func TestEKSSelfManagedGroupImageFollowsVersion(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"main.tf": `provider "aws" {
  region = "us-east-1"
}

module "eks" {
  source             = "terraform-aws-modules/eks/aws"
  version            = "~> 21.0"
  kubernetes_version = "1.33"
  self_managed_node_groups = {
    gpu          = { instance_type = "g6.xlarge" }
    nvidia       = { instance_type = "g6.xlarge", ami_type = "AL2023_x86_64_NVIDIA" }
    bottlerocket = { instance_type = "g6.xlarge", ami_type = "BOTTLEROCKET_x86_64" }
    own          = { instance_type = "g6.xlarge", ami_id = "ami-0123456789abcdef0" }
  }
}

module "old" {
  source        = "terraform-aws-modules/eks/aws//modules/self-managed-node-group"
  version       = "20.37.2"
  name          = "old"
  instance_type = "p5.48xlarge"
}
`})
	res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	got := map[string]string{}
	for _, r := range res.Resources {
		got[r.Address] = r.NoGPUDriver
	}
	group := func(k string) string {
		return `module.eks.module.self_managed_node_group["` + k + `"].aws_autoscaling_group.this[0]`
	}
	want := map[string]string{
		group("gpu"): `the launch template's image_id is module.eks.module.self_managed_node_group["gpu"].data.aws_ssm_parameter.ami ` +
			`("/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"), an EKS-optimized Amazon Linux 2023 standard AMI, ` +
			`without the NVIDIA driver: ami_type is not set, and the module's default is AL2023_x86_64_STANDARD`,
		group("nvidia"): "",
		group("bottlerocket"): `the launch template's image_id is module.eks.module.self_managed_node_group["bottlerocket"].data.aws_ssm_parameter.ami ` +
			`("/aws/service/bottlerocket/aws-k8s-1.33/x86_64/latest/image_id"), a Bottlerocket AMI for Kubernetes, without the NVIDIA driver: ` +
			`the AMI of ami_type = BOTTLEROCKET_x86_64`,
		group("own"): "",
		// v20: Amazon Linux 2; no Kubernetes version given, so the cluster's, unknown here.
		"module.old.aws_autoscaling_group.this[0]": `the launch template's image_id is module.old.data.aws_ssm_parameter.ami ` +
			`("/aws/service/eks/optimized-ami/*/amazon-linux-2/recommended/image_id"), an EKS-optimized Amazon Linux 2 AMI, without the NVIDIA driver: ` +
			`ami_type is not set, and the module's default is AL2_x86_64`,
	}
	if len(got) != len(want) {
		t.Fatalf("groups %q", got)
	}
	for addr, w := range want {
		if got[addr] != w {
			t.Errorf("%s:\n got %q\nwant %q", addr, got[addr], w)
		}
	}
}
