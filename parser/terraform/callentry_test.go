package terraform

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
)

// A registry module's node groups are reported at the entry of the call that declares each one,
// and a gpuguard:ignore comment above an entry waives rules on that group alone: found through a
// local value and merge(), never at a nested key of the same name, told apart by the argument
// named for the module that made the group when two arguments have the key, and at the call
// when the key is not written as a literal.
func TestStandInResourcesPointAtTheirEntry(t *testing.T) {
	src := `provider "aws" {
  region = "us-east-1"
}

provider "google" {
  region = "us-central1"
}

locals {
  prefix = "ml"
  base_groups = {
    # gpuguard:ignore GPU003 reason="sized for the 70B run"
    shared = {
      instance_types = ["g6.xlarge"]
    }
  }
}

# gpuguard:ignore GPU009 reason="bought through a savings plan"
module "eks" {
  source = "terraform-aws-modules/eks/aws"
  eks_managed_node_groups = merge(local.base_groups, {
    # gpuguard:ignore GPU012 reason="the GPU Operator installs the driver"
    gpu = {
      instance_types = ["g5.4xlarge"]
      ami_type       = "AL2_x86_64"
      taints = {
        gpu = { key = "nvidia.com/gpu", value = "true", effect = "NO_SCHEDULE" }
      }
    }
    "p4" = {
      instance_types = ["p4d.24xlarge"]
    }
    "${local.prefix}-h100" = {
      instance_types = ["p5.48xlarge"]
    }
  })
  self_managed_node_groups = {
    gpu = {
      instance_type = "g6e.xlarge"
    }
  }
}

module "gke" {
  source     = "terraform-google-modules/kubernetes-engine/google"
  project_id = "p"
  name       = "ml"
  region     = "us-central1"
  node_pools_labels = {
    all = {}
    l4  = { team = "ml" }
  }
  node_pools = [
    {
      name         = "l4"
      machine_type = "g2-standard-8"
    },
  ]
}
`
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"main.tf": src})
	res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	main := filepath.Join(root, "main.tf")
	wants := map[string]struct {
		line  int
		rules string // the rules its suppressions waive, in order
	}{
		`module.eks.module.eks_managed_node_group["shared"].aws_eks_node_group.this[0]`:  {13, "GPU009 GPU003"},
		`module.eks.module.eks_managed_node_group["gpu"].aws_eks_node_group.this[0]`:     {24, "GPU009 GPU012"},
		`module.eks.module.eks_managed_node_group["p4"].aws_eks_node_group.this[0]`:      {31, "GPU009"},
		`module.eks.module.eks_managed_node_group["ml-h100"].aws_eks_node_group.this[0]`: {20, "GPU009"},
		`module.eks.module.self_managed_node_group["gpu"].aws_autoscaling_group.this[0]`: {39, "GPU009"},
		`module.gke.google_container_node_pool.pools["l4"]`:                              {55, ""},
	}
	got := map[string]parser.Resource{}
	for _, r := range res.Resources {
		got[r.Address] = r
	}
	if len(got) != len(wants) {
		t.Errorf("%d resources, want %d", len(got), len(wants))
	}
	for addr, w := range wants {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s not found", addr)
			continue
		}
		if r.Source != (parser.Location{File: main, Line: w.line}) {
			t.Errorf("%s: reported at %s:%d, want main.tf:%d", addr, r.Source.File, r.Source.Line, w.line)
		}
		var rules []string
		for _, s := range r.Suppressions {
			rules = append(rules, s.Rule)
		}
		if strings.Join(rules, " ") != w.rules {
			t.Errorf("%s: suppressions %q, want %q", addr, rules, w.rules)
		}
	}
}

// The entry is looked for among the arguments of the call the user wrote, so a group of a
// downloaded wrapper module is found by the key the user gave it.
func TestDownloadedModuleResourcePointsAtItsEntry(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"main.tf": `provider "aws" {
  region = "us-east-1"
}
module "platform" {
  source = "acme/platform/aws"
  gpu_groups = {
    train = { instance_type = "p5.48xlarge" }
    serve = { instance_type = "g6e.xlarge" }
  }
}
`,
		".terraform/modules/platform/main.tf": `variable "gpu_groups" {}
module "eks" {
  source = "terraform-aws-modules/eks/aws"
  eks_managed_node_groups = { for k, g in var.gpu_groups : k => { instance_types = [g.instance_type] } }
}
`,
		ModulesManifest: `{"Modules":[{"Key":"platform","Source":"registry.terraform.io/acme/platform/aws","Dir":".terraform/modules/platform"}]}`,
	})
	res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
	lines := map[string]int{}
	for _, r := range res.Resources {
		lines[r.Address] = r.Source.Line
	}
	want := map[string]int{
		`module.platform.module.eks.module.eks_managed_node_group["train"].aws_eks_node_group.this[0]`: 7,
		`module.platform.module.eks.module.eks_managed_node_group["serve"].aws_eks_node_group.this[0]`: 8,
	}
	for addr, line := range want {
		if lines[addr] != line {
			t.Errorf("%s: line %d, want %d (have %v)", addr, lines[addr], line, lines)
		}
	}
}
