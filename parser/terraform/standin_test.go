package terraform

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
)

func TestRegistrySource(t *testing.T) {
	cases := map[string]string{
		"terraform-aws-modules/eks/aws":                                                                                    "terraform-aws-modules/eks/aws",
		"registry.terraform.io/terraform-aws-modules/eks/aws":                                                              "terraform-aws-modules/eks/aws",
		"registry.opentofu.org/terraform-aws-modules/eks/aws//modules/eks-managed-node-group":                              "terraform-aws-modules/eks/aws//modules/eks-managed-node-group",
		"git::https://github.com/terraform-aws-modules/terraform-aws-eks.git//modules/self-managed-node-group?ref=v20.8.5": "terraform-aws-modules/eks/aws//modules/self-managed-node-group",
		"github.com/terraform-google-modules/terraform-google-kubernetes-engine//modules/private-cluster":                  "terraform-google-modules/kubernetes-engine/google//modules/private-cluster",
		"git@github.com:terraform-aws-modules/terraform-aws-eks.git":                                                       "terraform-aws-modules/eks/aws",
		"tfr:///terraform-aws-modules/eks/aws//modules/self-managed-node-group?version=20.8.5":                             "terraform-aws-modules/eks/aws//modules/self-managed-node-group",
		"git::https://github.com/cloudposse/terraform-null-label.git?ref=tags/0.25.0":                                      "cloudposse/label/null",
		"github.com/acme/infra":                 "",
		"github.com/acme/terraform-modules/gpu": "",
	}
	for in, want := range cases {
		if got := registrySource(in); got != want {
			t.Errorf("registrySource(%q) = %q, want %q", in, got, want)
		}
	}
	if _, ok := standInFor("terraform-aws-modules/s3-bucket/aws", nil); ok {
		t.Error("a module gpuguard has no stand-in for must not get one")
	}
}

// Every stand-in evaluates with its defaults alone, without errors or warnings: a mistake in
// one would otherwise show up only as a warning on a user's run.
func TestStandInsEvaluateCleanly(t *testing.T) {
	seen := map[string]bool{}
	var sources []string
	for src, dir := range standInModules {
		if !seen[dir] {
			seen[dir] = true
			sources = append(sources, src)
		}
	}
	sort.Strings(sources)
	calls := map[string]string{}
	for _, src := range sources {
		calls[src] = "module \"m\" {\n  source = \"" + src + "\"\n}\n"
		// The stand-in of a module's older releases, for a call setting an input only they take.
		if rel, ok := standInReleases[standInModules[src]]; ok {
			calls[src+" ("+rel.older+")"] = "module \"m\" {\n  source = \"" + src + "\"\n  " + rel.inputs[0] + " = null\n}\n"
		}
	}
	for _, src := range slices.Sorted(maps.Keys(calls)) {
		root := t.TempDir()
		testutil.WriteFiles(t, root, map[string]string{"main.tf": calls[src]})
		res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
		if len(res.Errors) != 0 || len(res.Warnings) != 0 {
			t.Errorf("%s: errors %+v, warnings %+v", src, res.Errors, res.Warnings)
		}
		for _, d := range res.Included {
			if isStandIn(d) {
				t.Errorf("%s: a stand-in's directory %q is listed as included (it is not on disk)", src, d)
			}
		}
	}
}

// The node groups of terraform-aws-modules/eks/aws and the node pools of
// terraform-google-modules/kubernetes-engine/google are read without terraform init, at the
// addresses the modules give them, with the modules' defaults, reported at the entry of the call
// that declares them (a map's key, a list item's name), or at the call when it declares one
// machine (the AKS default pool, an EC2 instance per key of the call's own for_each).
func TestStandInsReadNodeGroups(t *testing.T) {
	src := `provider "aws" {
  region = "us-west-2"
}

provider "google" {
  region = "europe-west4"
}

# gpuguard:ignore GPU009 reason="bought through a savings plan"
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  tags = { team = "ml" }

  eks_managed_node_group_defaults = {
    capacity_type = "SPOT"
  }

  eks_managed_node_groups = {
    train = {
      instance_types = ["p5.48xlarge"]
      capacity_type  = "ON_DEMAND"
      desired_size   = 2
      tags           = { gpuguard-profile = "profiles/train.yaml" }
    }
    batch = {
      instance_types = ["g5.2xlarge", "g5.4xlarge"]
    }
    off = {
      create         = false
      instance_types = ["p4d.24xlarge"]
    }
    cpu = {
      instance_types = ["m6i.large"]
    }
  }

  self_managed_node_groups = {
    interruptible = {
      instance_type           = "g5.xlarge"
      instance_market_options = { market_type = "spot" }
    }
    mixed = {
      use_mixed_instances_policy = true
      desired_size               = 4
      mixed_instances_policy = {
        instances_distribution = {
          on_demand_base_capacity                  = 1
          on_demand_percentage_above_base_capacity = 0
        }
        override = [{ instance_type = "g6.xlarge" }, { instance_type = "g6.2xlarge" }]
      }
    }
  }
}

module "gke" {
  source     = "git::https://github.com/terraform-google-modules/terraform-google-kubernetes-engine.git//modules/beta-private-cluster?ref=v33.0.0"
  project_id = "p"
  name       = "ml"
  region     = "europe-west4"
  node_pools = [
    { name = "l4", machine_type = "g2-standard-8", min_count = 2, max_count = 6 },
    { name = "t4", machine_type = "n1-standard-8", accelerator_type = "nvidia-tesla-t4", accelerator_count = 1, autoscaling = false, node_count = 3, preemptible = true },
    { name = "fleet", machine_type = "a2-highgpu-1g", total_min_count = 5, total_max_count = 9 },
  ]
  node_pools_resource_labels = { all = { team = "ml" } }
}

module "aks" {
  source              = "azure/aks/azurerm"
  resource_group_name = "ml"
  location            = "West Europe"
  agents_size         = "Standard_NC24ads_A100_v4"
  agents_count        = 1
  agents_tags         = { team = "ml" }
  node_pools = {
    t4 = { name = "t4", vm_size = "Standard_NC4as_T4_v3", priority = "Spot", enable_auto_scaling = true, min_count = 2, max_count = 8, tags = { team = "ml" } }
  }
}

module "devbox" {
  source               = "terraform-aws-modules/ec2-instance/aws"
  for_each             = toset(["alice", "bob"])
  name                 = "devbox-${each.key}"
  instance_type        = "g6.2xlarge"
  availability_zone    = "us-east-2a"
  create_spot_instance = each.key == "bob"
  tags                 = { team = "ml" }
}

module "batch" {
  source = "terraform-aws-modules/batch/aws"
  tags   = { team = "ml" }
  compute_environments = {
    gpu_spot = {
      name_prefix = "gpu"
      compute_resources = {
        type          = "SPOT"
        min_vcpus     = 0
        max_vcpus     = 256
        desired_vcpus = 16
        instance_types = ["g5.4xlarge"]
        subnets       = ["subnet-1"]
      }
    }
    fargate = {
      compute_resources = { type = "FARGATE", max_vcpus = 4, subnets = ["subnet-1"] }
    }
  }
}

output "endpoint" {
  value = module.eks.cluster_endpoint
}
`
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"main.tf": src})
	res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	type want struct {
		typ, instance string
		qty, spot     int
		purchase      parser.PurchaseOption
		line          int
		tag, profile  string
	}
	wants := map[string]want{
		`module.eks.module.eks_managed_node_group["train"].aws_eks_node_group.this[0]`: {"aws_eks_node_group", "p5.48xlarge", 2, 0, parser.OnDemand, 21, "ml", "profiles/train.yaml"},
		// The defaults' SPOT and the root module's desired_size of 1.
		`module.eks.module.eks_managed_node_group["batch"].aws_eks_node_group.this[0]`: {"aws_eks_node_group", "g5.2xlarge", 1, 0, parser.Spot, 27, "ml", ""},
		// One on-demand base instance, the other three on spot.
		`module.eks.module.self_managed_node_group["mixed"].aws_autoscaling_group.this[0]`: {"aws_autoscaling_group", "g6.xlarge", 4, 3, parser.OnDemand, 44, "ml", ""},
		// A launch template's spot market options.
		`module.eks.module.self_managed_node_group["interruptible"].aws_autoscaling_group.this[0]`: {"aws_autoscaling_group", "g5.xlarge", 1, 0, parser.Spot, 40, "ml", ""},
		// Regional without zones: min_count per zone in GKE's three.
		`module.gke.google_container_node_pool.pools["l4"]`:            {"google_container_node_pool", "g2-standard-8", 6, 0, parser.OnDemand, 64, "ml", ""},
		`module.gke.google_container_node_pool.pools["t4"]`:            {"google_container_node_pool", "n1-standard-8", 9, 0, parser.Spot, 65, "ml", ""},
		`module.gke.google_container_node_pool.pools["fleet"]`:         {"google_container_node_pool", "a2-highgpu-1g", 5, 0, parser.OnDemand, 66, "ml", ""},
		`module.aks.azurerm_kubernetes_cluster.main.default_node_pool`: {"azurerm_kubernetes_cluster", "Standard_NC24ads_A100_v4", 1, 0, parser.OnDemand, 71, "ml", ""},
		// Autoscaled: priced at min_count.
		`module.aks.azurerm_kubernetes_cluster_node_pool.node_pool_create_before_destroy["t4"]`: {"azurerm_kubernetes_cluster_node_pool", "Standard_NC4as_T4_v3", 2, 0, parser.Spot, 79, "ml", ""},
		// One instance a developer, at the address the module's count gives it; the zone's region.
		`module.devbox["alice"].aws_instance.this[0]`:            {"aws_instance", "g6.2xlarge", 1, 0, parser.OnDemand, 83, "ml", ""},
		`module.devbox["bob"].aws_spot_instance_request.this[0]`: {"aws_spot_instance_request", "g6.2xlarge", 1, 0, parser.Spot, 83, "ml", ""},
		// 16 vCPUs, which the estimator turns into g5.4xlarge instances; Fargate has no GPU.
		`module.batch.aws_batch_compute_environment.this["gpu_spot"]`: {"aws_batch_compute_environment", "g5.4xlarge", 0, 0, parser.Spot, 97, "ml", ""},
	}
	got := map[string]parser.Resource{}
	for _, r := range res.Resources {
		got[r.Address] = r
	}
	for addr, w := range wants {
		r, ok := got[addr]
		if !ok {
			var have []string
			for a := range got {
				have = append(have, a)
			}
			t.Errorf("%s not found; have %q", addr, have)
			continue
		}
		if r.Type != w.typ || r.InstanceType != w.instance || r.Quantity != w.qty || r.SpotQuantity != w.spot || r.PurchaseOption != w.purchase {
			t.Errorf("%s: %s %s ×%d (spot %d) %s, want %s %s ×%d (spot %d) %s", addr, r.Type, r.InstanceType, r.Quantity, r.SpotQuantity, r.PurchaseOption, w.typ, w.instance, w.qty, w.spot, w.purchase)
		}
		if r.Source.File != filepath.Join(root, "main.tf") || r.Source.Line != w.line {
			t.Errorf("%s: reported at %s, want main.tf:%d", addr, r.Source, w.line)
		}
		if len(r.Notes) == 0 || !strings.Contains(strings.Join(r.Notes, "\n"), "read through gpuguard's stand-in for module") {
			t.Errorf("%s: no note saying it was read through the stand-in: %q", addr, r.Notes)
		}
		if r.Tags["team"] != w.tag || r.Profile != w.profile {
			t.Errorf("%s: tags %v, profile %q; want team=%s, profile %q", addr, r.Tags, r.Profile, w.tag, w.profile)
		}
		if r.Region == "" || len(r.Unresolved) != 0 {
			t.Errorf("%s: region %q, unresolved %+v", addr, r.Region, r.Unresolved)
		}
	}
	if len(res.Resources) != len(wants) {
		t.Errorf("%d resources, want %d (a node group with create = false, or without GPUs, is not one)", len(res.Resources), len(wants))
	}
	if r := got[`module.batch.aws_batch_compute_environment.this["gpu_spot"]`]; r.QuantityVCPUs != 16 {
		t.Errorf("a Batch environment is sized by its desired vCPUs: %d", r.QuantityVCPUs)
	}
	if r := got[`module.eks.module.eks_managed_node_group["train"].aws_eks_node_group.this[0]`]; len(r.Suppressions) != 1 || r.Suppressions[0].Rule != "GPU009" {
		t.Errorf("the suppression above the call applies to the module's resources: %+v", r.Suppressions)
	}
}

// A registry module terraform init downloaded is read itself, never through the stand-in.
func TestDownloadedModuleWinsOverStandIn(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"main.tf":                        "provider \"aws\" {\n  region = \"us-east-1\"\n}\nmodule \"eks\" {\n  source = \"terraform-aws-modules/eks/aws\"\n  eks_managed_node_groups = { gpu = { instance_types = [\"p4d.24xlarge\"] } }\n}\n",
		".terraform/modules/eks/main.tf": "variable \"eks_managed_node_groups\" {}\nresource \"aws_instance\" \"own\" {\n  instance_type = \"g6.xlarge\"\n}\n",
		ModulesManifest:                  `{"Modules":[{"Key":"eks","Source":"registry.terraform.io/terraform-aws-modules/eks/aws","Dir":".terraform/modules/eks"}]}`,
	})
	res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	if len(res.Resources) != 1 || res.Resources[0].Address != "module.eks.aws_instance.own" {
		t.Fatalf("resources %+v", res.Resources)
	}
}

// A downloaded wrapper module that calls a registry module terraform init did not fetch (an
// out-of-date manifest): the stand-in is used inside it, and the resource is still reported at
// the user's own call of the wrapper.
func TestStandInInsideDownloadedModule(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"main.tf":                             "provider \"aws\" {\n  region = \"us-east-1\"\n}\nmodule \"platform\" {\n  source = \"acme/platform/aws\"\n}\n",
		".terraform/modules/platform/main.tf": "module \"eks\" {\n  source = \"terraform-aws-modules/eks/aws\"\n  eks_managed_node_groups = { gpu = { instance_types = [\"g6.xlarge\"] } }\n}\n",
		ModulesManifest:                       `{"Modules":[{"Key":"platform","Source":"registry.terraform.io/acme/platform/aws","Dir":".terraform/modules/platform"}]}`,
	})
	res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	if len(res.Resources) != 1 || len(res.Errors) != 0 {
		t.Fatalf("resources %+v, errors %+v", res.Resources, res.Errors)
	}
	r := res.Resources[0]
	if r.Address != `module.platform.module.eks.module.eks_managed_node_group["gpu"].aws_eks_node_group.this[0]` ||
		r.Source != (parser.Location{File: filepath.Join(root, "main.tf"), Line: 4}) || len(r.Notes) != 2 {
		t.Fatalf("%s at %s, notes %q", r.Address, r.Source, r.Notes)
	}
}

// GPU fleets outside Kubernetes: terraform-aws-modules/autoscaling/aws (v8's and v9's shapes of
// the mixed instances policy, a template of the caller's own) and terraform-google-modules/vm's
// instance_template, mig, compute_instance and umig, whose template reaches the group through
// the template module's self_link output.
func TestStandInsReadMachineFleets(t *testing.T) {
	src := `provider "aws" {
  region = "us-east-1"
}

provider "google" {
  region = "us-central1"
}

module "workers" {
  source           = "terraform-aws-modules/autoscaling/aws"
  version          = "~> 8.0"
  name             = "workers"
  min_size         = 1
  max_size         = 4
  desired_capacity = 2
  instance_type    = "g5.2xlarge"
  image_id         = "ami-1"
  tags             = { team = "ml" }
  tag_specifications = [{ resource_type = "instance", tags = { project = "llm" } }]
}

module "spot_v9" {
  source                          = "terraform-aws-modules/autoscaling/aws"
  name                            = "spot"
  min_size                        = 0
  max_size                        = 10
  desired_capacity                = 4
  ignore_desired_capacity_changes = true
  use_mixed_instances_policy      = true
  mixed_instances_policy = {
    instances_distribution = { on_demand_base_capacity = 1, on_demand_percentage_above_base_capacity = 0 }
    launch_template        = { override = [{ instance_type = "g6.xlarge" }, { instance_type = "g6.2xlarge" }] }
  }
}

module "spot_v8" {
  source                     = "git::https://github.com/terraform-aws-modules/terraform-aws-autoscaling.git?ref=v8.0.0"
  name                       = "spot8"
  min_size                   = 2
  max_size                   = 2
  desired_capacity           = 2
  use_mixed_instances_policy = true
  mixed_instances_policy = {
    instances_distribution = { on_demand_percentage_above_base_capacity = 50 }
    override               = [{ instance_type = "g4dn.xlarge" }]
  }
}

module "market" {
  source                  = "terraform-aws-modules/autoscaling/aws"
  name                    = "market"
  min_size                = 1
  max_size                = 1
  instance_type           = "g6.xlarge"
  instance_market_options = { market_type = "spot" }
}

resource "aws_launch_template" "own" {
  instance_type = "p4d.24xlarge"
}

module "own_template" {
  source                 = "terraform-aws-modules/autoscaling/aws"
  name                   = "own"
  min_size               = 1
  max_size               = 1
  desired_capacity       = 1
  create_launch_template = false
  launch_template_id     = aws_launch_template.own.id
}

module "l4_template" {
  source       = "terraform-google-modules/vm/google//modules/instance_template"
  version      = "~> 13.0"
  region       = "us-central1"
  machine_type = "g2-standard-8"
  spot         = true
  labels       = { team = "ml" }
  service_account = { email = "sa@p.iam.gserviceaccount.com", scopes = ["cloud-platform"] }
}

module "t4_template" {
  source       = "terraform-google-modules/vm/google//modules/instance_template"
  machine_type = "n1-standard-8"
  gpu          = { type = "nvidia-tesla-t4", count = 2 }
  labels       = { team = "ml" }
}

module "mig" {
  source              = "terraform-google-modules/vm/google//modules/mig"
  region              = "us-central1"
  instance_template   = module.l4_template.self_link
  autoscaling_enabled = true
  min_replicas        = 1
  max_replicas        = 8
}

module "vms" {
  source            = "terraform-google-modules/vm/google//modules/compute_instance"
  zone              = "us-central1-a"
  num_instances     = 2
  instance_template = module.t4_template.self_link_unique
}

module "umig" {
  source            = "terraform-google-modules/vm/google//modules/umig"
  region            = "us-central1"
  static_ips        = ["10.0.0.2"]
  instance_template = module.t4_template.self_link
}
`
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"main.tf": src})
	res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	type want struct {
		instance    string
		gpus        int // attached GPUs (GCP N1)
		qty, spot   int
		max         int // the autoscaled maximum, 0 when none
		purchase    parser.PurchaseOption
		line        int
		region, tag string
	}
	wants := map[string]want{
		"module.workers.aws_autoscaling_group.this[0]": {"g5.2xlarge", 0, 2, 0, 4, parser.OnDemand, 9, "us-east-1", "ml"},
		// v9: the overrides under launch_template; one on-demand base instance, three on spot.
		"module.spot_v9.aws_autoscaling_group.idc[0]": {"g6.xlarge", 0, 4, 3, 10, parser.OnDemand, 22, "us-east-1", ""},
		// v8: the overrides beside instances_distribution; half of the two on spot. A declared
		// max_size is the maximum even when it equals the size.
		"module.spot_v8.aws_autoscaling_group.this[0]": {"g4dn.xlarge", 0, 2, 1, 2, parser.OnDemand, 36, "us-east-1", ""},
		"module.market.aws_autoscaling_group.this[0]":  {"g6.xlarge", 0, 1, 0, 1, parser.Spot, 49, "us-east-1", ""},
		// The caller's own template, named by its id.
		"module.own_template.aws_autoscaling_group.this[0]": {"p4d.24xlarge", 0, 1, 0, 1, parser.OnDemand, 62, "us-east-1", ""},
		// The autoscaler's floor, its maximum, the template's spot scheduling and labels.
		"module.mig.google_compute_region_instance_group_manager.mig":           {"g2-standard-8", 0, 1, 0, 8, parser.Spot, 89, "us-central1", "ml"},
		"module.vms.google_compute_instance_from_template.compute_instance[0]":  {"n1-standard-8", 2, 1, 0, 0, parser.OnDemand, 98, "us-central1", "ml"},
		"module.vms.google_compute_instance_from_template.compute_instance[1]":  {"n1-standard-8", 2, 1, 0, 0, parser.OnDemand, 98, "us-central1", "ml"},
		"module.umig.google_compute_instance_from_template.compute_instance[0]": {"n1-standard-8", 2, 1, 0, 0, parser.OnDemand, 105, "us-central1", "ml"},
	}
	got := map[string]parser.Resource{}
	for _, r := range res.Resources {
		got[r.Address] = r
	}
	for addr, w := range wants {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s not found", addr)
			continue
		}
		gpus := 0
		for _, a := range r.Accelerators {
			gpus += a.Count
		}
		max := 0
		if r.ScaleMax != nil {
			max = r.ScaleMax.Quantity
		}
		if r.InstanceType != w.instance || gpus != w.gpus || r.Quantity != w.qty || r.SpotQuantity != w.spot || max != w.max || r.PurchaseOption != w.purchase {
			t.Errorf("%s: %s +%d GPUs ×%d (spot %d, max %d) %s; want %s +%d GPUs ×%d (spot %d, max %d) %s", addr,
				r.InstanceType, gpus, r.Quantity, r.SpotQuantity, max, r.PurchaseOption, w.instance, w.gpus, w.qty, w.spot, w.max, w.purchase)
		}
		if r.Source.Line != w.line || r.Region != w.region || r.Tags["team"] != w.tag || len(r.Unresolved) != 0 {
			t.Errorf("%s: line %d, region %q, tags %v, unresolved %+v; want line %d, region %q, team=%q", addr, r.Source.Line, r.Region, r.Tags, r.Unresolved, w.line, w.region, w.tag)
		}
		if !strings.Contains(strings.Join(r.Notes, "\n"), "read through gpuguard's stand-in for module") {
			t.Errorf("%s: no note saying it was read through the stand-in: %q", addr, r.Notes)
		}
	}
	if len(res.Resources) != len(wants) {
		var have []string
		for a := range got {
			have = append(have, a)
		}
		sort.Strings(have)
		t.Errorf("%d resources, want %d: %q", len(res.Resources), len(wants), have)
	}
	// The launch template's instance tags reach the group's instances.
	if r := got["module.workers.aws_autoscaling_group.this[0]"]; r.Tags["project"] != "llm" || r.Tags["Name"] != "workers" {
		t.Errorf("tags %v: want the template's project=llm and the group's Name=workers", r.Tags)
	}
}

// An output a stand-in does not declare is unknown with the stand-in's reason, not as a
// mistake of the caller's; the ones it declares are read, also through count.
func TestStandInOutputs(t *testing.T) {
	src := `provider "google" {
  region = "us-central1"
}

module "tpl" {
  source       = "terraform-google-modules/vm/google//modules/instance_template"
  count        = 2
  machine_type = "g2-standard-${4 * (count.index + 1)}"
}

resource "google_compute_instance_from_template" "second" {
  zone                     = "us-central1-b"
  source_instance_template = module.tpl[1].self_link
}

resource "google_compute_instance" "guess" {
  zone         = "us-central1-b"
  machine_type = module.tpl[0].tags[0]
}

resource "google_compute_instance_from_template" "wrong_output" {
  zone                     = "us-central1-b"
  source_instance_template = module.tpl[0].template_link
}

variable "template_id" {
  type = string
}

module "asg" {
  source                 = "terraform-aws-modules/autoscaling/aws"
  name                   = "asg"
  min_size               = 1
  max_size               = 1
  create_launch_template = false
  launch_template_id     = var.template_id
}
`
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"main.tf": src})
	res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	got := map[string]parser.Resource{}
	for _, r := range res.Resources {
		got[r.Address] = r
	}
	if r := got["google_compute_instance_from_template.second"]; r.InstanceType != "g2-standard-8" || len(r.Unresolved) != 0 {
		t.Errorf("made from the second template: %s, unresolved %+v", r.InstanceType, r.Unresolved)
	}
	r := got["google_compute_instance.guess"]
	if len(r.Unresolved) != 1 || !strings.Contains(r.Unresolved[0].Reason, "read through gpuguard's stand-in, which models its GPU machines only") ||
		strings.Contains(r.Unresolved[0].Reason, "has no output") {
		t.Errorf("an output the stand-in does not declare: %+v", r.Unresolved)
	}
	// A template named through such an output: the reason is the output's, not that the
	// template is missing from the configuration.
	r = got["google_compute_instance_from_template.wrong_output"]
	if len(r.Unresolved) != 1 || !strings.HasPrefix(r.Unresolved[0].Reason, "the instance template is unknown: module.tpl: source") ||
		!strings.Contains(r.Unresolved[0].Reason, "models its GPU machines only") {
		t.Errorf("a template named through an output the stand-in does not declare: %+v", r.Unresolved)
	}
	r = got["module.asg.aws_autoscaling_group.this[0]"]
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, "the launch template is unknown: var.template_id has no value") {
		t.Errorf("a launch template named by a variable without a value: %q", r.Notes)
	}
}

// cloudposse/label/null, read through its stand-in: the id joins the non-empty labels in
// label_order with the delimiter, after dropping the characters regex_replace_chars names and
// lower-casing; a label chained on another's context adds its attributes; the tags carry the
// labels (Name is the id) under the given ones; a disabled label counts nothing.
func TestCloudPosseLabel(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"main.tf": `provider "aws" {
  region = "us-east-1"
}

module "this" {
  source    = "cloudposse/label/null"
  version   = "0.25.0"
  namespace = "EG"
  tenant    = "core"
  stage     = "prod"
  name      = "ML_Team"
  tags      = { team = "ml" }
}

module "workers" {
  source     = "cloudposse/label/null"
  attributes = ["workers", "gpu"]
  context    = module.this.context
}

module "ordered" {
  source      = "cloudposse/label/null"
  label_order = ["name", "tenant", "stage"]
  delimiter   = "."
  context     = module.this.context
}

module "off" {
  source  = "cloudposse/label/null"
  enabled = false
  context = module.this.context
}

resource "aws_instance" "this" {
  instance_type = "g5.xlarge"
  tags          = merge(module.this.tags, { id = module.this.id })
}

resource "aws_instance" "workers" {
  instance_type = "g5.xlarge"
  tags          = merge(module.workers.tags, { id = module.workers.id })
}

resource "aws_instance" "ordered" {
  instance_type = "g5.xlarge"
  tags          = { id = module.ordered.id }
}

resource "aws_instance" "off" {
  count         = module.off.enabled ? 1 : 0
  instance_type = "g5.xlarge"
}
`})
	res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	got := map[string]string{}
	for _, r := range res.Resources {
		if len(r.Unresolved) != 0 {
			t.Errorf("%s: unresolved %+v", r.Address, r.Unresolved)
		}
		got[r.Address] = fmt.Sprint(r.Tags)
	}
	want := map[string]string{
		// tenant is not in the default label_order; every label gives a tag.
		"aws_instance.this":    "map[Name:eg-prod-mlteam Namespace:eg Stage:prod Tenant:core id:eg-prod-mlteam team:ml]",
		"aws_instance.workers": "map[Attributes:workers-gpu Name:eg-prod-mlteam-workers-gpu Namespace:eg Stage:prod Tenant:core id:eg-prod-mlteam-workers-gpu team:ml]",
		"aws_instance.ordered": "map[id:mlteam.core.prod]",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// cloudposse/eks-node-group/aws, read through its stand-in: the node group at the module's
// address, named by the label ("-workers" added) or, made before it is destroyed, by the label
// and a name known only at apply; its size, maximum, capacity type, labels and taints from the
// inputs, its tags from the label; and the module's AMI type, AL2_x86_64 unless set, which has
// no NVIDIA driver (GPU012), except where an AMI of the user's replaces it.
func TestCloudPosseEKSNodeGroup(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{"main.tf": `provider "aws" {
  region = "us-west-2"
}

module "this" {
  source    = "cloudposse/label/null"
  namespace = "eg"
  stage     = "prod"
  tags      = { team = "ml", project = "llm", env = "prod" }
}

module "gpu" {
  source            = "cloudposse/eks-node-group/aws"
  version           = "3.1.0"
  name              = "gpu"
  cluster_name      = "ml"
  subnet_ids        = ["subnet-1"]
  instance_types    = ["g6e.2xlarge"]
  desired_size      = 2
  min_size          = 1
  max_size          = 6
  capacity_type     = "SPOT"
  kubernetes_labels = { workload = "serve" }
  kubernetes_taints = [{ key = "nvidia.com/gpu", value = "true", effect = "NO_SCHEDULE" }]
  ami_type          = "AL2023_x86_64_NVIDIA"
  context           = module.this.context
}

module "train" {
  source                = "git::https://github.com/cloudposse/terraform-aws-eks-node-group.git?ref=tags/3.1.0"
  name                  = "train"
  cluster_name          = "ml"
  subnet_ids            = ["subnet-1"]
  instance_types        = ["p5.48xlarge"]
  desired_size          = 1
  min_size              = 1
  max_size              = 1
  create_before_destroy = true
  context               = module.this.context
}

module "own_ami" {
  source         = "cloudposse/eks-node-group/aws"
  name           = "own"
  cluster_name   = "ml"
  subnet_ids     = ["subnet-1"]
  instance_types = ["g5.xlarge"]
  ami_image_id   = ["ami-0123456789abcdef0"]
  desired_size   = 1
  min_size       = 1
  max_size       = 1
  context        = module.this.context
}

module "disabled" {
  source         = "cloudposse/eks-node-group/aws"
  enabled        = false
  instance_types = ["p5.48xlarge"]
  desired_size   = 1
  min_size       = 1
  max_size       = 1
}
`})
	res := ParseModule(root, []string{filepath.Join(root, "main.tf")}, Options{})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	got := map[string]parser.Resource{}
	for _, r := range res.Resources {
		got[r.Address] = r
	}
	if len(got) != 3 {
		t.Fatalf("resources %v", slices.Collect(maps.Keys(got)))
	}
	gpu := got["module.gpu.aws_eks_node_group.default[0]"]
	if gpu.InstanceType != "g6e.2xlarge" || gpu.Quantity != 2 || gpu.ScaleMax == nil || gpu.ScaleMax.Quantity != 6 ||
		gpu.PurchaseOption != parser.Spot || gpu.Region != "us-west-2" || gpu.NoGPUDriver != "" || len(gpu.Unresolved) != 0 {
		t.Errorf("gpu: %+v", gpu)
	}
	if nl := gpu.NodeLabels; nl == nil || nl.Labels["eks.amazonaws.com/nodegroup"] != "eg-prod-gpu-workers" || nl.Labels["workload"] != "serve" ||
		fmt.Sprint(nl.Taints) != "[nvidia.com/gpu=true:NoSchedule]" {
		t.Errorf("gpu node labels: %+v", gpu.NodeLabels)
	}
	if gpu.Tags["team"] != "ml" || gpu.Tags["Name"] != "eg-prod-gpu-workers" {
		t.Errorf("gpu tags: %v", gpu.Tags)
	}
	if notes := strings.Join(gpu.Notes, "\n"); !strings.Contains(notes, `read through gpuguard's stand-in for module "gpu" (cloudposse/eks-node-group/aws)`) {
		t.Errorf("gpu notes: %q", gpu.Notes)
	}
	train := got["module.train.aws_eks_node_group.cbd[0]"]
	if train.InstanceType != "p5.48xlarge" || train.PurchaseOption == parser.Spot || !strings.Contains(train.NoGPUDriver, `ami_type is not set, and the module's default, "AL2_x86_64"`) {
		t.Errorf("train: %+v", train)
	}
	if nl := train.NodeLabels; nl == nil || nl.Prefixes["eks.amazonaws.com/nodegroup"] != "eg-prod-train-workers-" {
		t.Errorf("train node labels: %+v", train.NodeLabels)
	}
	if own := got["module.own_ami.aws_eks_node_group.default[0]"]; own.InstanceType != "g5.xlarge" || own.NoGPUDriver != "" {
		t.Errorf("own AMI: %+v", own)
	}
}

// Azure Verified Modules' AKS module is read through the stand-in of the release its inputs
// belong to: agent_pools and default_agent_pool since its AzAPI release, node_pools and
// default_node_pool before it, each at that release's addresses and with its defaults.
func TestAzureVerifiedAKSModule(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{"main.tf": `
module "aks" {
  source    = "Azure/avm-res-containerservice-managedcluster/azurerm"
  version   = "~> 0.4"
  name      = "ml"
  location  = "eastus"
  parent_id = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/ml"
  tags      = { team = "ml" }
  # Inputs the stand-in does not model are taken without a word, as for every stand-in.
  dns_prefix = "ml"
  sku        = { name = "Base", tier = "Standard" }
  default_agent_pool_managed_as_child = true
  default_agent_pool = { vm_size = "Standard_D4s_v5" }
  agent_pools = {
    a100 = { name = "a100", vm_size = "Standard_NC24ads_A100_v4", count_of = 2, node_labels = { workload = "train" }, tags = { team = "research" } }
    t4   = { name = "t4", vm_size = "Standard_NC4as_T4_v3", enable_auto_scaling = true, min_count = 1, max_count = 4, count_of = 9, scale_set_priority = "Spot" }
    none = { name = "none", vm_size = "Standard_NC4as_T4_v3", output_data_only = true }
  }
}

module "gpu_system" {
  source             = "Azure/avm-res-containerservice-managedcluster/azurerm"
  name               = "gpu"
  location           = "westus2"
  parent_id          = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/gpu"
  default_agent_pool = { vm_size = "Standard_NC4as_T4_v3", gpu_profile = { driver = "None" } }
  agent_pools        = { l4 = { name = "l4", vm_size = "Standard_NV36ads_A10_v5" } }
  create_agentpools_before_destroy = true
}

module "aks_azurerm" {
  source              = "Azure/avm-res-containerservice-managedcluster/azurerm"
  version             = "0.1.7"
  name                = "old"
  location            = "eastus"
  resource_group_name = "rg"
  default_node_pool   = { name = "default", vm_size = "Standard_NC4as_T4_v3", node_count = 2, tags = { pool = "default" } }
  node_pools = {
    v100 = { name = "v100", vm_size = "Standard_NC6s_v3", auto_scaling_enabled = true, min_count = 0, max_count = 3, priority = "Spot", eviction_policy = "Delete" }
  }
  create_nodepools_before_destroy = true
}
`})
	got := parseCleanly(t, dir)
	describe := func(r parser.Resource) string {
		max := 0
		if r.ScaleMax != nil {
			max = r.ScaleMax.Quantity
		}
		return fmt.Sprintf("%s ×%d (max %d) %s in %s, %d unresolved", r.InstanceType, r.Quantity, max, r.PurchaseOption, r.Region, len(r.Unresolved))
	}
	for addr, want := range map[string]string{
		`module.aks.module.nodepools["a100"].azapi_resource.this[0]`: "Standard_NC24ads_A100_v4 ×2 (max 0) on_demand in eastus, 0 unresolved",
		// Both bounds set: count_of is not sent, the pool runs its minimum.
		`module.aks.module.nodepools["t4"].azapi_resource.this[0]`: "Standard_NC4as_T4_v3 ×1 (max 4) spot in eastus, 0 unresolved",
		// The default pool's count_of is 3 unless set.
		`module.gpu_system.azapi_resource.this.agentPoolProfiles["systempool"]`:                                               "Standard_NC4as_T4_v3 ×3 (max 0) on_demand in westus2, 0 unresolved",
		`module.gpu_system.module.nodepools["l4"].azapi_resource.this_create_before_destroy[0]`:                               "Standard_NV36ads_A10_v5 ×1 (max 0) on_demand in westus2, 0 unresolved",
		`module.aks_azurerm.azurerm_kubernetes_cluster.this.default_node_pool`:                                                "Standard_NC4as_T4_v3 ×2 (max 0) on_demand in eastus, 0 unresolved",
		`module.aks_azurerm.module.nodepools["v100"].azurerm_kubernetes_cluster_node_pool.create_before_destroy_node_pool[0]`: "Standard_NC6s_v3 ×0 (max 3) spot in eastus, 0 unresolved",
	} {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s: not read; read %v", addr, slices.Sorted(maps.Keys(got)))
			continue
		}
		if d := describe(r); d != want {
			t.Errorf("%s:\n got  %s\n want %s", addr, d, want)
		}
		if r.Source.File != filepath.Join(dir, "main.tf") || !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "stand-in") }) {
			t.Errorf("%s: at %+v, notes %q", addr, r.Source, r.Notes)
		}
	}
	for addr := range got {
		if strings.Contains(addr, `"none"`) || strings.Contains(addr, "module.aks.azapi_resource.this") {
			t.Errorf("%s: a pool the module does not create, or a CPU default pool, was priced", addr)
		}
	}
	a100 := got[`module.aks.module.nodepools["a100"].azapi_resource.this[0]`]
	if a100.Tags["team"] != "research" || a100.NodeLabels == nil || a100.NodeLabels.Labels["workload"] != "train" {
		t.Errorf("a100: tags %v, labels %+v", a100.Tags, a100.NodeLabels)
	}
	if sys := got[`module.gpu_system.azapi_resource.this.agentPoolProfiles["systempool"]`]; sys.NoGPUDriver == "" {
		t.Errorf("gpu_profile.driver None not read on the default pool: %+v", sys)
	}
	if def := got[`module.aks_azurerm.azurerm_kubernetes_cluster.this.default_node_pool`]; def.Tags["pool"] != "default" {
		t.Errorf("the AzureRM releases' default pool: tags %v", def.Tags)
	}
}

// Azure Verified Modules' virtual machine and scale set, read through their stand-ins: a VM of
// sku_size at the AzureRM releases' address by os_type (Windows by default, with the license
// note), at the AzAPI releases' when the call sets an input only those take; a Flexible scale
// set of sku_name and instances with its Spot Priority Mix; one without sku_name has no VMs of
// its own and is not reported, nor is a VM left at the module's CPU default size.
func TestAzureVerifiedVMAndScaleSetModules(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{"main.tf": `
module "train" {
  source              = "Azure/avm-res-compute-virtualmachine/azurerm"
  version             = "~> 0.19"
  name                = "train"
  location            = "East US"
  resource_group_name = "ml"
  zone                = "1"
  os_type             = "Linux"
  sku_size            = "Standard_NC24ads_A100_v4"
  priority            = "Spot"
  eviction_policy     = "Deallocate"
  tags                = { team = "ml" }
  # Inputs the stand-in does not model are taken without a word.
  admin_username     = "azureuser"
  network_interfaces = { nic = { name = "nic", ip_configurations = { ip = { name = "ip", private_ip_subnet_resource_id = "/subscriptions/0/x" } } } }
}

module "render" {
  source              = "Azure/avm-res-compute-virtualmachine/azurerm"
  name                = "render"
  location            = "eastus"
  resource_group_name = "ml"
  zone                = null
  sku_size            = "Standard_NV36ads_A10_v5"
}

module "azapi" {
  source              = "Azure/avm-res-compute-virtualmachine/azurerm"
  name                = "azapi"
  location            = "eastus"
  resource_group_name = "ml"
  zone                = "2"
  os_type             = "linux"
  sku_size            = "Standard_NC4as_T4_v3"
  retry               = { error_message_regex = ["RetryableError"] }
}

module "cpu" {
  source              = "Azure/avm-res-compute-virtualmachine/azurerm"
  name                = "jump"
  location            = "eastus"
  resource_group_name = "ml"
  zone                = "1"
  os_type             = "Linux"
}

module "fleet" {
  source                      = "Azure/avm-res-compute-virtualmachinescaleset/azurerm"
  version                     = "0.7.0"
  name                        = "fleet"
  location                    = "eastus"
  resource_group_name         = "ml"
  platform_fault_domain_count = 1
  sku_name                    = "Standard_NC24ads_A100_v4"
  instances                   = 8
  priority                    = "Spot"
  priority_mix                = { base_regular_count = 2 }
  tags                        = { team = "ml" }
  admin_password              = null
  user_data_base64            = null
}

module "attach" {
  source                      = "Azure/avm-res-compute-virtualmachinescaleset/azurerm"
  name                        = "attach"
  location                    = "eastus"
  resource_group_name         = "ml"
  platform_fault_domain_count = 1
}
`})
	got := parseCleanly(t, dir)
	describe := func(r parser.Resource) string {
		return fmt.Sprintf("%s ×%d (%d spot) %s in %s, %d unresolved", r.InstanceType, r.Quantity, r.SpotQuantity, r.PurchaseOption, r.Region, len(r.Unresolved))
	}
	want := map[string]string{
		"module.train.azurerm_linux_virtual_machine.this[0]":        "Standard_NC24ads_A100_v4 ×1 (0 spot) spot in eastus, 0 unresolved",
		"module.render.azurerm_windows_virtual_machine.this[0]":     "Standard_NV36ads_A10_v5 ×1 (0 spot) on_demand in eastus, 0 unresolved",
		"module.azapi.azapi_resource.this_linux_virtual_machine[0]": "Standard_NC4as_T4_v3 ×1 (0 spot) on_demand in eastus, 0 unresolved",
		// Two Regular VMs, the other six Spot (regular_percentage_above_base defaults to 0).
		"module.fleet.azurerm_orchestrated_virtual_machine_scale_set.virtual_machine_scale_set": "Standard_NC24ads_A100_v4 ×8 (6 spot) on_demand in eastus, 0 unresolved",
	}
	if len(got) != len(want) {
		t.Errorf("read %v, want %d resources", slices.Sorted(maps.Keys(got)), len(want))
	}
	for addr, w := range want {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s: not read; read %v", addr, slices.Sorted(maps.Keys(got)))
			continue
		}
		if d := describe(r); d != w {
			t.Errorf("%s:\n got  %s\n want %s", addr, d, w)
		}
		if r.Source.File != filepath.Join(dir, "main.tf") || !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "stand-in") }) {
			t.Errorf("%s: at %+v, notes %q", addr, r.Source, r.Notes)
		}
	}
	if r := got["module.train.azurerm_linux_virtual_machine.this[0]"]; r.Tags["team"] != "ml" {
		t.Errorf("the VM's tags: %v", r.Tags)
	}
	if r := got["module.render.azurerm_windows_virtual_machine.this[0]"]; !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, "Windows VM") }) {
		t.Errorf("the module's default os_type is Windows: notes %q", r.Notes)
	}
}

// parseCleanly reads the root module in dir, which must give neither errors nor warnings, and
// returns its resources by address.
func parseCleanly(t *testing.T, dir string) map[string]parser.Resource {
	t.Helper()
	res := ParseModuleDir(dir, Options{FileDirs: []string{dir}})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	got := map[string]parser.Resource{}
	for _, r := range res.Resources {
		got[r.Address] = r
	}
	return got
}
