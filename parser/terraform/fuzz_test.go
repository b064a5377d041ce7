package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// seedFiles adds every fixture file with the given suffix to the fuzz corpus.
func seedFiles(f *testing.F, suffix string) {
	root := filepath.Join("..", "..", "testdata", "terraform")
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, suffix) {
			if b, err := os.ReadFile(path); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
}

// FuzzParseSource feeds arbitrary bytes to the HCL evaluation entry point. It must never panic
// (the evaluator's last-resort recover turns a panic into an "internal error", which fails here)
// and never hang.
func FuzzParseSource(f *testing.F) {
	seedFiles(f, ".tf")
	// Zones of the wrong shape: a subnet list with a number and a null, a pool's zones as
	// numbers, node_locations as one string, an ARM pool's zones as an object.
	f.Add([]byte(`resource "aws_subnet" "a" { availability_zone = 3 }
resource "aws_eks_node_group" "g" {
  instance_types = ["g6.xlarge"]
  subnet_ids     = [aws_subnet.a.id, 3, null]
}
resource "azurerm_kubernetes_cluster_node_pool" "p" {
  vm_size = "Standard_NC24ads_A100_v4"
  zones   = [1, "x"]
}
resource "google_container_node_pool" "n" {
  location       = "us-central1-a"
  node_locations = "us-central1-b"
  node_config { machine_type = "g2-standard-8" }
}
resource "azapi_resource" "a" {
  type = "Microsoft.ContainerService/managedClusters/agentPools@2025-05-01"
  body = { properties = { vmSize = "Standard_NC4as_T4_v3", availabilityZones = { a = 1 } } }
}`))
	// The VPC module's stand-in with inputs of the wrong shape: azs as one string, as nulls and
	// numbers, subnets as a number, and an index past the subnets it makes.
	f.Add([]byte(`module "vpc" {
  source          = "terraform-aws-modules/vpc/aws"
  azs             = [null, 1, "use1-az1"]
  private_subnets = ["10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24"]
  public_subnets  = 3
}
module "vpc2" {
  source          = "terraform-aws-modules/vpc/aws"
  azs             = "us-east-1a"
  private_subnets = ["10.0.1.0/24"]
}
resource "aws_eks_node_group" "g" {
  instance_types = ["g6.xlarge"]
  subnet_ids     = concat(module.vpc.private_subnets, [module.vpc2.private_subnets[4]])
}`))
	f.Add([]byte(`locals { a = [for i in range(3) : i] }
resource "aws_instance" "x" {
  count = length(local.a)
  instance_type = try(local.a[5], "g5.xlarge")
  dynamic "ebs_block_device" {
    for_each = local.a
    content { volume_size = ebs_block_device.value }
  }
}`))
	// The device plugin's charts with values of the wrong type, a typed ConfigMap, a pod.
	f.Add([]byte(`resource "helm_release" "p" {
  repository = "https://nvidia.github.io/k8s-device-plugin"
  chart      = "nvidia-device-plugin"
  values     = [yamlencode({ config = { map = ["x"], default = 3, fallbackStrategies = "single" } })]
  set {
    name  = "devicePlugin.config.data.a"
    value = "version: v1"
  }
}
resource "helm_release" "o" {
  repository = "https://helm.ngc.nvidia.com/nvidia"
  chart      = "gpu-operator"
  values     = [yamlencode({ devicePlugin = { config = { create = "yes", name = ["a"], data = { a = 1 } } } })]
}
resource "helm_release" "m" {
  repository = "https://helm.ngc.nvidia.com/nvidia"
  chart      = "gpu-operator"
  values     = [yamlencode({ migManager = { config = { create = true, name = 1, data = "l: [{devices: all, mig-enabled: true, mig-devices: {1g.10gb: x}}]" } } })]
}
resource "aws_eks_node_group" "g" {
  instance_types = ["p4d.24xlarge"]
  labels         = { "nvidia.com/mig.config" = "l" }
}
resource "kubernetes_config_map_v1" "c" {
  metadata { name = "a" }
  data = { a = "version: v1\nsharing: {mps: {resources: [{name: nvidia.com/gpu, replicas: 2}]}}" }
}
resource "kubernetes_job_v1" "j" {
  metadata { name = "j" }
  spec {
    active_deadline_seconds = -1
    template {
      metadata {}
      spec {
        container {
          name = "c"
          resources { limits = { "nvidia.com/gpu" = 1 } }
        }
      }
    }
  }
}`))
	// Node pools whose GPUs are split into MIG slices or shared, with values of the wrong type.
	f.Add([]byte(`resource "google_container_node_pool" "p" {
  node_config {
    machine_type = "a2-highgpu-1g"
    guest_accelerator {
      type               = "nvidia-tesla-a100"
      count              = 1
      gpu_partition_size = ["1g.5gb"]
      gpu_sharing_config { max_shared_clients_per_gpu = "many" }
    }
  }
}
resource "azurerm_kubernetes_cluster_node_pool" "a" {
  vm_size      = "Standard_NC24ads_A100_v4"
  gpu_instance = 7
}`))
	// moved blocks: resources, instances with keys, modules, and ones that are not addresses.
	f.Add([]byte(`moved {
  from = module.a["k"].aws_instance.x[0]
  to   = aws_instance.y[1.5]
}
moved {
  from = aws_instance.z
  to   = var.v
}
moved { from = 1 }
resource "aws_instance" "y" { instance_type = "g5.xlarge" }`))
	// A workload applied to a cluster read from resources and data sources, beside a GPU pool.
	f.Add([]byte(`data "aws_eks_cluster" "c" { name = "x" }
resource "google_container_cluster" "g" { location = "us-central1-a" }
resource "google_container_node_pool" "p" {
  cluster = google_container_cluster.g.id
  node_config { machine_type = "g2-standard-8" }
}
provider "kubernetes" { host = "${data.aws_eks_cluster.c.endpoint}${google_container_cluster.g.endpoint}" }
provider "helm" {
  kubernetes { host = google_container_cluster.g.endpoint }
}
resource "kubernetes_manifest" "m" {
  manifest = { apiVersion = "v1", kind = "Pod", metadata = { name = "m" }, spec = { containers = [{ name = "c", resources = { limits = { "nvidia.com/gpu" = 1 } } }] } }
}`))
	// Node pools with names, prefixes and labels, and pods that select them.
	f.Add([]byte(`variable "l" {}
resource "google_container_node_pool" "a" {
  name_prefix = "gpu-"
  node_config {
    machine_type = "g2-standard-8"
    labels       = { workload = var.l, team = "ml" }
  }
}
resource "aws_eks_node_group" "b" {
  node_group_name = "gpu"
  instance_types  = ["g6.xlarge"]
  labels          = var.l
}
resource "kubernetes_manifest" "m" {
  manifest = { apiVersion = "v1", kind = "Pod", metadata = { name = "m" }, spec = { nodeSelector = { "cloud.google.com/gke-nodepool" = "gpu-1", workload = "x" }, containers = [{ name = "c", resources = { limits = { "nvidia.com/gpu" = 1 } } }] } }
}`))
	// A self-managed node group: user data the fuzzer can mutate into odd scripts, NodeConfigs
	// and autoscaler tags.
	f.Add([]byte(`resource "aws_launch_template" "t" {
  instance_type = "g5.xlarge"
  user_data     = base64encode("#!/bin/bash\nL=a=b\n/etc/eks/bootstrap.sh c --kubelet-extra-args \"--node-labels=$L --register-with-taints=k=v:NoSchedule\"\n")
}
resource "aws_autoscaling_group" "g" {
  desired_capacity = 1
  launch_template { id = aws_launch_template.t.id }
  tag {
    key                 = "k8s.io/cluster-autoscaler/node-template/taint/k"
    value               = "v:NoExecute"
    propagate_at_launch = false
  }
}
resource "kubernetes_pod" "p" {
  metadata { name = "p" }
  spec {
    node_selector = { a = "b" }
    container {
      name = "c"
      resources { limits = { "nvidia.com/gpu" = 1 } }
    }
  }
}
`))
	// The functions added with yamldecode: seeds the fuzzer can mutate into odd arguments.
	f.Add([]byte(`locals {
  y = yamldecode("a: &x [1, *x]\nb: {<<: {c: 1}}")
  e = yamlencode({ a = [1, null] })
  s = cidrsubnets("10.0.0.0/16", 4, 8)
  h = cidrhost("fd00::/64", -1)
  m = matchkeys(["a"], ["k"], ["k"])
  t = transpose({ a = ["1"] })
  u = uuidv5("dns", "x")
  c = timecmp("2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z")
  p = templatestring("$${x}", { x = 1 })
  f = fileset(".", "**/*.{tf,yaml}")
}
resource "aws_instance" "x" {
  instance_type = "g5.xlarge"
  tags          = { y = jsonencode(local.y) }
}`))
	// Expressions salvaged part by part after a failure (see salvage.go), nested and in for
	// expressions, merge() and tuples, with the new file-hash and text functions.
	f.Add([]byte(`locals {
  g = { a = { t = "g5.xlarge", u = templatefile("none.tpl", {}) }, b = { t = lookup({}, "k") } }
  f = { for k, v in local.g : k => merge(v, { h = filemd5("none"), x = [file("none"), v.t] }) if k != "" }
  l = [for v in values(local.g) : { t = v.t, z = textdecodebase64("!", "UTF-8") }]
  b = base64gzip(bcrypt("x"))
}
resource "aws_instance" "x" {
  for_each      = local.f
  instance_type = each.value.t
  user_data     = pathexpand("~/x")
}`))
	// Registry modules read through gpuguard's stand-ins, with inputs of the wrong shapes.
	f.Add([]byte(`module "eks" {
  source = "terraform-aws-modules/eks/aws"
  eks_managed_node_groups = { a = { instance_types = ["g5.xlarge"], desired_size = 2 }, b = 1 }
  self_managed_node_groups = { c = { use_mixed_instances_policy = true, mixed_instances_policy = { override = [1] } } }
}
module "gke" {
  source = "github.com/terraform-google-modules/terraform-google-kubernetes-engine//modules/private-cluster"
  regional = false
  zones = []
  node_pools = [{ name = "a", accelerator_count = "x", autoscaling = false }]
}`))
	// kubectl_manifest bodies: a number, a multi-document stream, YAML that does not parse.
	f.Add([]byte(`resource "kubectl_manifest" "a" {
  yaml_body = 3
}
resource "kubectl_manifest" "b" {
  yaml_body = "kind: Pod\n---\nkind: Job\nspec: {parallelism: [x"
}
resource "kubectl_manifest" "c" {
  yaml_body = yamlencode({ kind = "Pod", spec = { containers = [{ resources = { limits = { "nvidia.com/gpu" = "x" } } }] } })
}`))
	// Fleets through stand-ins: a policy that is a string, overrides that are numbers, a GPU
	// object of the wrong shape, an output read from a module that failed, a negative count.
	f.Add([]byte(`module "asg" {
  source = "terraform-aws-modules/autoscaling/aws"
  use_mixed_instances_policy = true
  mixed_instances_policy = { launch_template = { override = [1, { instance_type = 2 }] }, override = "x" }
  instance_market_options = "spot"
  tag_specifications = [{ resource_type = "instance" }]
}
module "tpl" {
  source = "terraform-google-modules/vm/google//modules/instance_template"
  gpu = { type = 1 }
}
module "mig" {
  source = "terraform-google-modules/vm/google//modules/mig"
  instance_template = module.tpl.self_link_unique
  autoscaling_enabled = "maybe"
}
module "vms" {
  source = "terraform-google-modules/vm/google//modules/umig"
  num_instances = -1
  static_ips = [module.tpl.name]
  instance_template = module.tpl.nope
}`))
	// EMR scaling with odd shapes: a limit of zero, a fleet weight of zero, a policy that is a
	// number, a scaling policy with no limits block.
	f.Add([]byte(`resource "aws_emr_cluster" "c" {
  core_instance_fleet {
    instance_type_configs {
      instance_type     = "g5.xlarge"
      weighted_capacity = 0
    }
    target_spot_capacity = 3
  }
}
resource "aws_emr_instance_group" "t" {
  cluster_id         = aws_emr_cluster.c.id
  instance_type      = "g6.xlarge"
  autoscaling_policy = 5
}
resource "aws_emr_managed_scaling_policy" "p" {
  cluster_id = aws_emr_cluster.c.id
  compute_limits {
    unit_type              = "InstanceFleetUnits"
    minimum_capacity_units = -1
    maximum_capacity_units = 0
  }
}
resource "aws_emr_managed_scaling_policy" "q" { cluster_id = aws_emr_cluster.c.id }`))
	f.Add([]byte(`resource "google_container_cluster" "c" {
  cluster_autoscaling {
    enabled = null
    resource_limits {
      resource_type = "nvidia-l4"
      maximum       = -1
    }
    resource_limits { resource_type = "nvidia-tesla-t4" }
    resource_limits = 3
  }
  node_pool { node_config { machine_type = "g2-standard-24" } }
}
resource "google_container_node_pool" "p" {
  cluster = google_container_cluster.c.id
  autoscaling { max_node_count = 99999999999 }
  node_config {
    guest_accelerator { type = "nvidia-l4" }
  }
}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := ParseSource("fuzz.tf", data, Options{})
		for _, e := range res.Errors {
			if strings.Contains(e.Message, "internal error") {
				t.Fatalf("evaluator panicked: %s", e.Message)
			}
		}
	})
}

// FuzzParsePlan feeds arbitrary bytes to the plan JSON reader.
func FuzzParsePlan(f *testing.F) {
	seedFiles(f, ".json")
	f.Add([]byte(`{"format_version":"1.2","planned_values":{"root_module":{"resources":[{"address":"aws_instance.x","mode":"managed","type":"aws_instance","name":"x","values":{"instance_type":"g5.xlarge"}}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := ParsePlan("fuzz.json", data)
		for _, e := range res.Errors {
			if strings.Contains(e.Message, "internal error") {
				t.Fatalf("plan reader panicked: %s", e.Message)
			}
		}
	})
}

// FuzzVariableValues feeds arbitrary bytes to the variable-value paths: as a terraform.tfvars
// file and as --var values for typed variables (parsed as HCL expressions, as Terraform does).
// Neither may panic; a tfvars problem is an error with the file's name.
func FuzzVariableValues(f *testing.F) {
	for _, s := range []string{
		"gpus = 2\nitype = \"p4d.24xlarge\"\n",
		"tags = { team = \"ml\" }\nsizes = [1, 2]\n",
		"gpus = var.x\n",
		"itype = \"${1 + }\"\n",
		"{\"gpus\": 3}",
		"gpus = [for i in range(1e9) : i]\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	main := filepath.Join(dir, "main.tf")
	src := `variable "gpus" { type = number }
variable "itype" { default = "g6.xlarge" }
variable "tags" { type = map(string) }
variable "sizes" { type = list(number) }
resource "aws_instance" "x" {
  count         = var.gpus
  instance_type = var.itype
  tags          = var.tags
}
`
	if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		vars := filepath.Join(t.TempDir(), "terraform.tfvars")
		if err := os.WriteFile(vars, data, 0o644); err != nil {
			t.Fatal(err)
		}
		raw := string(data)
		res := ParseModule(dir, []string{main}, Options{AutoVarFiles: []string{vars}, Vars: []string{"tags=" + raw, "sizes=" + raw}})
		for _, e := range res.Errors {
			if strings.Contains(e.Message, "internal error") {
				t.Fatalf("evaluator panicked: %s", e.Message)
			}
		}
	})
}

// FuzzYAMLDecode feeds arbitrary text to yamldecode: a value or an error that says it came
// from yamldecode, never a panic or an unbounded expansion; what yamlencode writes of a value
// decodes again.
func FuzzYAMLDecode(f *testing.F) {
	seedFiles(f, ".yaml")
	f.Add([]byte("a: &a {x: 1}\nb:\n  <<: *a\n  y: [1, 2.5, null, yes, 0x1f]\n"))
	f.Add([]byte("- &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := yamlDecode(string(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "yamldecode: ") {
				t.Fatalf("error without its function: %v", err)
			}
			return
		}
		if v.IsNull() || !v.IsWhollyKnown() {
			return
		}
		out, err := yamlEncodeFunc.Call([]cty.Value{v})
		if err != nil {
			t.Fatalf("yamlencode of a decoded value: %v", err)
		}
		if _, err := yamlDecode(out.AsString()); err != nil {
			t.Fatalf("yamlencode wrote %q, which does not decode: %v", out.AsString(), err)
		}
	})
}

// FuzzGlob feeds arbitrary fileset patterns to the translation to a regular expression: an
// error or an expression that compiles, never a panic; a pattern without special characters
// matches exactly itself.
func FuzzGlob(f *testing.F) {
	for _, p := range []string{"*.yaml", "**/*.{yaml,yml}", "[!a]?.tf", "a\\*b", "{a,{b,c}}/**", "[", "}"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		re, err := globRegexp(pattern)
		if err != nil {
			return
		}
		if !strings.ContainsAny(pattern, "*?[]{},\\") && !re.MatchString(pattern) {
			t.Fatalf("%q does not match itself (%s)", pattern, re)
		}
	})
}
