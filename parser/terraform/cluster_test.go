package terraform

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// podOf is a kubernetes_manifest of one pod that requests a GPU, with the node selector given
// (HCL object attributes) and nothing else that names a region.
func podOf(name, selector string) string {
	return `resource "kubernetes_manifest" "` + name + `" {
  manifest = {
    apiVersion = "v1"
    kind       = "Pod"
    metadata   = { name = "` + name + `", namespace = "ml" }
    spec = {
      nodeSelector = {` + selector + `}
      containers   = [{ name = "c", image = "x", resources = { limits = { "nvidia.com/gpu" = 1 } } }]
    }
  }
}
`
}

// A workload declared through Terraform whose manifest names no region runs in the cluster
// its Kubernetes provider connects to: found through locals, nested provider blocks, aliased
// providers and data sources; else the only cluster of the configuration; else, for a node on
// a known cloud, that cloud's provider. A region the manifest names is kept.
func TestManifestRegionFromTheCluster(t *testing.T) {
	const g5 = ` "node.kubernetes.io/instance-type" = "g5.xlarge" `
	cases := []struct {
		name, src string
		region    string // "" when none may be taken
		from      string // in the note
	}{
		{"gke through a local, zone location", `
provider "google" { region = "us-central1" }
resource "google_container_cluster" "main" {
  name     = "ml"
  location = "europe-west4-a"
}
locals { host = "https://${google_container_cluster.main.endpoint}" }
provider "kubernetes" { host = local.host }
` + podOf("p", ""), "europe-west4", `google_container_cluster.main, the cluster that provider "kubernetes" connects to`},

		{"eks data source on an aliased provider", `
provider "aws" { region = "us-east-1" }
provider "aws" {
  alias  = "west"
  region = "us-west-2"
}
data "aws_eks_cluster" "c" {
  provider = aws.west
  name     = "ml"
}
provider "kubernetes" { host = data.aws_eks_cluster.c.endpoint }
` + podOf("p", g5), "us-west-2", `data.aws_eks_cluster.c, the cluster that provider "kubernetes" connects to`},

		{"eks token only, through a kubernetes provider alias", `
provider "aws" { region = "eu-north-1" }
data "aws_eks_cluster_auth" "c" { name = "ml" }
provider "kubernetes" {
  alias = "ml"
  host  = "https://example.invalid"
  token = data.aws_eks_cluster_auth.c.token
}
provider "kubernetes" { host = "https://other.invalid" }
` + strings.Replace(podOf("p", g5), "resource \"kubernetes_manifest\" \"p\" {", "resource \"kubernetes_manifest\" \"p\" {\n  provider = kubernetes.ml", 1),
			"eu-north-1", `data.aws_eks_cluster_auth.c, the cluster that provider "kubernetes.ml" connects to`},

		{"aks through kube_config", `
resource "azurerm_kubernetes_cluster" "aks" {
  name     = "ml"
  location = "West Europe"
}
provider "kubernetes" { host = azurerm_kubernetes_cluster.aks.kube_config[0].host }
` + podOf("p", ""), "westeurope", `azurerm_kubernetes_cluster.aks, the cluster that provider "kubernetes" connects to`},

		{"a cluster whose location is known only at apply is not in its provider's region", `
provider "google" { region = "us-central1" }
variable "zone" {}
data "google_container_cluster" "c" {
  name     = "ml"
  location = var.zone
}
provider "kubernetes" { host = data.google_container_cluster.c.endpoint }
` + podOf("p", ""), "", ""},

		{"the only cluster, provider host a literal", `
resource "azurerm_kubernetes_cluster" "aks" {
  name     = "ml"
  location = "eastus2"
}
provider "kubernetes" { host = "https://aks.example.invalid" }
` + podOf("p", ""), "eastus2", `azurerm_kubernetes_cluster.aks, the only cluster in the configuration`},

		{"two clusters in two regions, none connected", `
resource "azurerm_kubernetes_cluster" "a" { location = "eastus2" }
resource "azurerm_kubernetes_cluster" "b" { location = "westus3" }
` + podOf("p", ""), "", ""},

		{"counted clusters all in one region", `
resource "google_container_cluster" "c" {
  count    = 2
  location = "us-east4"
}
` + podOf("p", ""), "us-east4", `the configuration's 2 clusters (google_container_cluster.c[0], google_container_cluster.c[1]), all in us-east4`},

		{"the cluster is on another cloud than the node: the node's cloud provider", `
provider "aws" { region = "ap-northeast-1" }
resource "google_container_cluster" "main" { location = "us-central1" }
provider "kubernetes" { host = google_container_cluster.main.endpoint }
` + podOf("p", g5), "ap-northeast-1", `provider "aws"`},

		{"no cluster, the node's cloud provider", `
provider "google" { zone = "asia-southeast1-b" }
` + podOf("p", ` "cloud.google.com/gke-accelerator" = "nvidia-l4" `), "asia-southeast1", `provider "google"`},

		{"no cluster and a node on no named cloud", `
provider "aws" { region = "ap-northeast-1" }
` + podOf("p", ""), "", ""},

		{"the manifest's own region wins", `
resource "aws_eks_cluster" "c" { name = "ml" }
provider "aws" { region = "us-west-2" }
provider "kubernetes" { host = aws_eks_cluster.c.endpoint }
` + podOf("p", g5+`, "topology.kubernetes.io/region" = "us-east-2" `), "us-east-2", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := ParseSource("main.tf", []byte(tc.src), Options{})
			if len(res.Errors) != 0 || len(res.Resources) != 1 {
				t.Fatalf("errors %+v, %d resources", res.Errors, len(res.Resources))
			}
			r := res.Resources[0]
			notes := strings.Join(r.Notes, "|")
			if r.Region != tc.region {
				t.Fatalf("region %q, want %q (notes %s)", r.Region, tc.region, notes)
			}
			if tc.from != "" && !strings.Contains(notes, "region "+tc.region+" from "+tc.from) {
				t.Fatalf("notes %s, want the region from %s", notes, tc.from)
			}
			if tc.from == "" && strings.Contains(notes, "region ") {
				t.Fatalf("a region was taken: %s", notes)
			}
		})
	}
}

// A KAITO Workspace applied through Terraform to an AKS cluster is in that cluster's region,
// no longer "the cluster it runs in, whose region the manifest does not name".
func TestKaitoWorkspaceTakesTheAKSRegion(t *testing.T) {
	src := `
resource "azurerm_kubernetes_cluster" "aks" { location = "swedencentral" }
provider "kubectl" { host = azurerm_kubernetes_cluster.aks.kube_config[0].host }
resource "kubectl_manifest" "ws" {
  yaml_body = <<-Y
    apiVersion: kaito.sh/v1beta1
    kind: Workspace
    metadata:
      name: phi
    resource:
      instanceType: Standard_NC24ads_A100_v4
      labelSelector:
        matchLabels:
          apps: phi
    inference:
      preset:
        name: phi-3-mini-4k-instruct
  Y
}
`
	res := ParseSource("main.tf", []byte(src), Options{})
	if len(res.Errors) != 0 || len(res.Resources) != 1 {
		t.Fatalf("errors %+v, %d resources", res.Errors, len(res.Resources))
	}
	r := res.Resources[0]
	if r.Region != "swedencentral" || r.RegionUnknown != "" || r.InstanceType != "Standard_NC24ads_A100_v4" {
		t.Fatalf("region %q (unknown: %q), type %q, notes %q", r.Region, r.RegionUnknown, r.InstanceType, r.Notes)
	}
}

// In a plan, the provider configuration's references name the cluster.
func TestManifestRegionFromTheClusterInAPlan(t *testing.T) {
	plan := `{"format_version":"1.2",
"configuration":{"provider_config":{
  "aws":{"name":"aws","expressions":{"region":{"constant_value":"eu-central-1"}}},
  "helm":{"name":"helm","expressions":{"kubernetes":[{"host":{"references":["aws_eks_cluster.this[0].endpoint","aws_eks_cluster.this[0]","aws_eks_cluster.this"]}}]}},
  "kubernetes":{"name":"kubernetes","expressions":{"host":{"references":["aws_eks_cluster.this[0].endpoint","aws_eks_cluster.this[0]","aws_eks_cluster.this"]}}}},
 "root_module":{"resources":[
  {"address":"aws_eks_cluster.this","mode":"managed","type":"aws_eks_cluster","name":"this","provider_config_key":"aws","expressions":{}},
  {"address":"kubernetes_manifest.p","mode":"managed","type":"kubernetes_manifest","name":"p","provider_config_key":"kubernetes","expressions":{}}]}},
"planned_values":{"root_module":{"resources":[
  {"address":"aws_eks_cluster.this[0]","mode":"managed","type":"aws_eks_cluster","name":"this","index":0,"values":{"name":"ml"}},
  {"address":"kubernetes_manifest.p","mode":"managed","type":"kubernetes_manifest","name":"p","values":{"manifest":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeSelector":{"node.kubernetes.io/instance-type":"g6.xlarge"},"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}]}}}}
]}}}`
	res := ParsePlan("plan.json", []byte(plan))
	if len(res.Errors) != 0 || len(res.Resources) != 1 {
		t.Fatalf("errors %+v, %d resources", res.Errors, len(res.Resources))
	}
	r := res.Resources[0]
	if r.Region != "eu-central-1" || !strings.Contains(strings.Join(r.Notes, "|"), `region eu-central-1 from aws_eks_cluster.this, the cluster that provider "kubernetes" connects to`) {
		t.Fatalf("region %q, notes %q", r.Region, r.Notes)
	}
}

// A chart's workloads run where the helm provider's kubernetes block (v2) or attribute (v3)
// connects, even with other clusters in the configuration.
func TestHelmReleaseRegionFromTheCluster(t *testing.T) {
	for _, connect := range []string{"kubernetes {", "kubernetes = {"} {
		dir := t.TempDir()
		testutil.WriteFiles(t, dir, map[string]string{
			"main.tf": `
resource "google_container_cluster" "main" { location = "asia-northeast1" }
resource "google_container_cluster" "other" { location = "us-west1" }
provider "helm" {
  ` + connect + `
    host = google_container_cluster.main.endpoint
  }
}
resource "helm_release" "llm" {
  name  = "llm"
  chart = "./chart"
}
`,
			"chart/Chart.yaml": "apiVersion: v2\nname: llm\nversion: 0.1.0\n",
			"chart/templates/d.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
spec:
  template:
    spec:
      containers:
        - name: c
          resources:
            limits:
              nvidia.com/gpu: 1
`,
		})
		res := ParseModuleDir(dir, Options{FileDirs: []string{dir}})
		if len(res.Errors) != 0 || len(res.Resources) != 1 {
			t.Fatalf("%s: errors %+v, %d resources", connect, res.Errors, len(res.Resources))
		}
		if r := res.Resources[0]; r.Region != "asia-northeast1" {
			t.Fatalf("%s: region %q, notes %q", connect, r.Region, r.Notes)
		}
	}
}

// A GPU pod that names no node runs on the configuration's one kind of GPU node group, with
// its purchase option, region and attached GPUs; with two kinds, an unknown one, a node the
// pod's labels rule out, or the user's own default, it does not.
func TestPodRunsOnTheOnlyGPUNodeGroup(t *testing.T) {
	pool := func(name, machine, extra string) string {
		return `resource "google_container_node_pool" "` + name + `" {
  cluster    = "ml"
  location   = "us-central1-a"
  node_count = 1
  node_config {
    machine_type = "` + machine + `"
    ` + extra + `
  }
}
`
	}
	const t4 = "spot = true\n    guest_accelerator {\n      type  = \"nvidia-tesla-t4\"\n      count = 1\n    }"
	cases := []struct {
		name, src string
		opts      Options
		want      string // type/purchase/region/gpus, or "" for a pod left unresolved
	}{
		{"one pool", pool("t4", "n1-standard-8", t4) + pool("cpu", "e2-standard-8", "") + podOf("p", ""), Options{},
			"n1-standard-8/spot/us-central1/nvidia-tesla-t4 from google_container_node_pool.t4, the configuration's only GPU node group"},
		{"two pools of one kind", pool("a", "g2-standard-8", "") + pool("b", "g2-standard-8", "") + podOf("p", ""), Options{},
			"g2-standard-8/on_demand/us-central1/ from the configuration's GPU node groups (google_container_node_pool.a, google_container_node_pool.b), all of g2-standard-8"},
		{"the user's default first", pool("t4", "n1-standard-8", t4) + podOf("p", ""), Options{Kubernetes: kubernetes.Options{DefaultInstanceType: "g2-standard-4"}},
			"g2-standard-4/on_demand// from config kubernetes.default_instance_type"},
		{"two kinds", pool("a", "g2-standard-8", "") + pool("b", "a2-highgpu-1g", "") + podOf("p", ""), Options{}, ""},
		{"a pool whose type is unknown", pool("a", "g2-standard-8", "") + "variable \"m\" {}\n" + strings.Replace(pool("b", "x", ""), `"x"`, "var.m", 1) + podOf("p", ""), Options{}, ""},
		{"the pod's labels name another cloud", pool("a", "g2-standard-8", "") + podOf("p", ` "karpenter.sh/capacity-type" = "spot" `), Options{}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := ParseSource("main.tf", []byte(tc.src), tc.opts)
			pod := podNode(t, res, tc.want)
			// The pods fill the nodes of the groups they run on (the totals count them within
			// them): the only group, or every group of the one kind.
			want := ""
			switch {
			case strings.Contains(tc.want, "only GPU node group"):
				want = "google_container_node_pool.t4"
			case strings.Contains(tc.want, "GPU node groups ("):
				want = "google_container_node_pool.a google_container_node_pool.b"
			}
			if got := groupRefs(pod.Pod); got != want {
				t.Errorf("node groups %q, want %q", got, want)
			}
		})
	}
}

// podNode finds the one pod among a configuration's resources and checks its node: want is
// "type/purchase/region/gpus from source", or "" for a pod whose node is unresolved.
func podNode(t *testing.T, res parser.Result, want string) *parser.Resource {
	t.Helper()
	var pod *parser.Resource
	for i := range res.Resources {
		if res.Resources[i].Pod != nil {
			pod = &res.Resources[i]
		}
	}
	if len(res.Errors) != 0 || pod == nil {
		t.Fatalf("errors %+v, resources %+v", res.Errors, res.Resources)
	}
	if want == "" {
		if pod.InstanceType != "" || len(pod.Unresolved) == 0 || pod.Unresolved[0].Attribute != "node" {
			t.Fatalf("the pod was placed: %s, unresolved %+v, node from %q", pod.InstanceType, pod.Unresolved, pod.Pod.NodeSource)
		}
		return pod
	}
	got := fmt.Sprintf("%s/%s/%s/%s from %s", pod.InstanceType, pod.PurchaseOption, pod.Region, strings.Join(pod.Pod.GPUNames, ","), pod.Pod.NodeSource)
	if got != want || len(pod.Unresolved) != 0 {
		t.Fatalf("got %s, unresolved %+v\nwant %s", got, pod.Unresolved, want)
	}
	return pod
}

// In a plan, a provider that connects through a module's output (module.eks.cluster_endpoint)
// finds the cluster that output is read from, inside the module.
func TestManifestRegionThroughAModuleOutputInAPlan(t *testing.T) {
	plan := `{"format_version":"1.2",
"configuration":{"provider_config":{
  "aws":{"name":"aws","expressions":{"region":{"constant_value":"us-west-1"}}},
  "kubernetes":{"name":"kubernetes","expressions":{"host":{"references":["module.eks.cluster_endpoint","module.eks"]}}}},
 "root_module":{
  "resources":[
   {"address":"kubernetes_manifest.p","mode":"managed","type":"kubernetes_manifest","name":"p","provider_config_key":"kubernetes","expressions":{}},
   {"address":"aws_eks_cluster.other","mode":"managed","type":"aws_eks_cluster","name":"other","provider_config_key":"aws.east","expressions":{}}],
  "module_calls":{"eks":{"source":"terraform-aws-modules/eks/aws","module":{
   "outputs":{"cluster_endpoint":{"expression":{"references":["aws_eks_cluster.this[0].endpoint","aws_eks_cluster.this[0]","aws_eks_cluster.this"]}}},
   "resources":[{"address":"aws_eks_cluster.this","mode":"managed","type":"aws_eks_cluster","name":"this","provider_config_key":"aws","expressions":{}}]}}}}},
"planned_values":{"root_module":{
 "resources":[
  {"address":"aws_eks_cluster.other","mode":"managed","type":"aws_eks_cluster","name":"other","values":{"name":"other"}},
  {"address":"kubernetes_manifest.p","mode":"managed","type":"kubernetes_manifest","name":"p","values":{"manifest":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}]}}}}],
 "child_modules":[{"address":"module.eks","resources":[
  {"address":"module.eks.aws_eks_cluster.this[0]","mode":"managed","type":"aws_eks_cluster","name":"this","index":0,"values":{"name":"ml"}}]}]}}}`
	res := ParsePlan("plan.json", []byte(plan))
	if len(res.Errors) != 0 || len(res.Resources) != 1 {
		t.Fatalf("errors %+v, %d resources", res.Errors, len(res.Resources))
	}
	r := res.Resources[0]
	if r.Region != "us-west-1" || !strings.Contains(strings.Join(r.Notes, "|"), `region us-west-1 from module.eks.aws_eks_cluster.this, the cluster that provider "kubernetes" connects to`) {
		t.Fatalf("region %q, notes %q", r.Region, r.Notes)
	}
}

// A cluster made by terraform-aws-modules/eks/aws, read through gpuguard's stand-in, is the
// configuration's cluster: its workloads are in the provider's region, and a GPU pod that
// names no node runs on its one GPU node group.
func TestManifestOnAStandInEKSCluster(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{"main.tf": `
provider "aws" { region = "eu-west-1" }
module "eks" {
  source = "terraform-aws-modules/eks/aws"
  eks_managed_node_groups = {
    gpu = { instance_types = ["g6.2xlarge"], capacity_type = "SPOT", desired_size = 2, labels = { workload = "llm" } }
    cpu = { instance_types = ["m6i.large"] }
  }
}
provider "kubernetes" { host = module.eks.cluster_endpoint }
` + podOf("p", "") + podOf("q", ` "eks.amazonaws.com/nodegroup" = "cpu" `) + podOf("r", ` workload = "llm" `)})
	res := ParseModuleDir(dir, Options{FileDirs: []string{dir}})
	got := map[string]string{}
	for _, r := range res.Resources {
		if r.Pod != nil {
			got[r.Address] = fmt.Sprintf("%s/%s/%s %s", r.InstanceType, r.PurchaseOption, r.Region, strings.Join(r.Notes, "|"))
		}
	}
	if p := got["kubernetes_manifest.p"]; !strings.HasPrefix(p, "g6.2xlarge/spot/eu-west-1 ") {
		t.Errorf("p: %s", p)
	}
	if q := got["kubernetes_manifest.q"]; !strings.HasPrefix(q, "/on_demand/eu-west-1 ") ||
		!strings.Contains(q, `region eu-west-1 from module.eks.aws_eks_cluster.this[0], the only cluster in the configuration`) {
		t.Errorf("q: %s", q)
	}
	// The module names its groups from a prefix ("gpu-" and a suffix made at apply): a pod
	// selects the GPU group by its labels.
	if r := got["kubernetes_manifest.r"]; !strings.HasPrefix(r, "g6.2xlarge/spot/eu-west-1 ") {
		t.Errorf("r: %s", r)
	}
	if len(res.Errors) != 0 || len(got) != 3 {
		t.Fatalf("errors %+v, pods %v", res.Errors, got)
	}
}

// Node groups carry the labels their nodes have: the cloud's label with the group's name, and
// the labels the group declares. A name generated at apply (from a prefix or not), or labels
// known only then, are recorded as such; they never make the group itself unresolved.
func TestNodeGroupLabels(t *testing.T) {
	const gpuPool = `node_config {
    machine_type = "g2-standard-8"
    labels       = { workload = "serve" }
  }`
	// l4Pool is a GKE pool of G2 machines whose node_config also has capacity.
	l4Pool := func(capacity string) string {
		return `resource "google_container_node_pool" "l4" {
  name     = "l4-pool"
  cluster  = "c"
  location = "us-central1-a"
  node_config {
    machine_type = "g2-standard-8"
    ` + capacity + "\n  }\n}"
	}
	// eksGroup and aksPool are a node group of the capacity type, and a pool of the priority, given.
	eksGroup := func(capacity string) string {
		return `resource "aws_eks_node_group" "g" {
  cluster_name    = "c"
  node_group_name = "gpu"
  instance_types  = ["g5.xlarge"]
  capacity_type   = ` + capacity + "\n}"
	}
	aksPool := func(priority string) string {
		return `resource "azurerm_kubernetes_cluster_node_pool" "p" {
  name                  = "a100"
  kubernetes_cluster_id = "id"
  vm_size               = "Standard_NC24ads_A100_v4"
  priority              = ` + priority + "\n}"
	}
	const gkeRegular = " without:cloud.google.com/gke-flex-start without:cloud.google.com/gke-preemptible without:cloud.google.com/gke-spot without:sandbox.gke.io/runtime"
	cases := []struct {
		name, src, address string
		want               string // sorted k=v, then unknown:k, without:k, prefix:k=v, then "partial" when partial
	}{
		{"EKS node group", `resource "aws_eks_node_group" "g" {
  cluster_name    = "c"
  node_group_name = "gpu"
  instance_types  = ["g5.xlarge"]
  labels          = { workload = "train", "nvidia.com/gpu.present" = "true" }
}`, "aws_eks_node_group.g", "eks.amazonaws.com/capacityType=ON_DEMAND eks.amazonaws.com/nodegroup=gpu nvidia.com/gpu.present=true workload=train"},
		{"EKS node group named at apply", `resource "aws_eks_node_group" "g" {
  cluster_name           = "c"
  node_group_name_prefix = "gpu-"
  instance_types         = ["g5.xlarge"]
}`, "aws_eks_node_group.g", "eks.amazonaws.com/capacityType=ON_DEMAND prefix:eks.amazonaws.com/nodegroup=gpu-"},
		{"EKS node group named by Terraform", `resource "aws_eks_node_group" "g" {
  cluster_name   = "c"
  instance_types = ["g5.xlarge"]
}`, "aws_eks_node_group.g", "eks.amazonaws.com/capacityType=ON_DEMAND unknown:eks.amazonaws.com/nodegroup"},
		{"EKS node group whose labels are known at apply", `variable "labels" { type = map(string) }
resource "aws_eks_node_group" "g" {
  cluster_name    = "c"
  node_group_name = "gpu"
  instance_types  = ["g5.xlarge"]
  labels          = var.labels
}`, "aws_eks_node_group.g", "eks.amazonaws.com/capacityType=ON_DEMAND eks.amazonaws.com/nodegroup=gpu partial"},
		{"GKE node pool", `resource "google_container_node_pool" "l4" {
  name     = "l4-pool"
  cluster  = "c"
  location = "us-central1-a"
  ` + gpuPool + `
}`, "google_container_node_pool.l4", "cloud.google.com/gke-accelerator=nvidia-l4 cloud.google.com/gke-nodepool=l4-pool workload=serve without:cloud.google.com/gke-flex-start without:cloud.google.com/gke-preemptible without:cloud.google.com/gke-spot without:sandbox.gke.io/runtime"},
		{"GKE node pool with labels known at apply", `variable "team" {}
resource "google_container_node_pool" "l4" {
  name     = "l4-pool"
  cluster  = "c"
  location = "us-central1-a"
  node_config {
    machine_type = "g2-standard-8"
    labels       = { workload = "serve", team = var.team }
  }
}`, "google_container_node_pool.l4", "cloud.google.com/gke-accelerator=nvidia-l4 cloud.google.com/gke-nodepool=l4-pool workload=serve unknown:team without:cloud.google.com/gke-flex-start without:cloud.google.com/gke-preemptible without:cloud.google.com/gke-spot without:sandbox.gke.io/runtime"},
		{"GKE cluster's pool block", `resource "google_container_cluster" "c" {
  location = "us-central1-a"
  node_pool {
    name = "gpu"
    ` + gpuPool + `
  }
}`, `google_container_cluster.c.node_pool["gpu"]`, "cloud.google.com/gke-accelerator=nvidia-l4 cloud.google.com/gke-nodepool=gpu workload=serve without:cloud.google.com/gke-flex-start without:cloud.google.com/gke-preemptible without:cloud.google.com/gke-spot without:sandbox.gke.io/runtime"},
		{"GKE cluster's default pool", `resource "google_container_cluster" "c" {
  location = "us-central1-a"
  ` + gpuPool + `
}`, "google_container_cluster.c.default_node_pool", "cloud.google.com/gke-accelerator=nvidia-l4 cloud.google.com/gke-nodepool=default-pool workload=serve without:cloud.google.com/gke-flex-start without:cloud.google.com/gke-preemptible without:cloud.google.com/gke-spot without:sandbox.gke.io/runtime"},
		{"AKS default pool", `resource "azurerm_kubernetes_cluster" "c" {
  location = "eastus"
  default_node_pool {
    name        = "gpu"
    vm_size     = "Standard_NC4as_T4_v3"
    node_count  = 1
    node_labels = { workload = "serve" }
  }
}`, "azurerm_kubernetes_cluster.c.default_node_pool", "agentpool=gpu kubernetes.azure.com/agentpool=gpu workload=serve without:kubernetes.azure.com/scalesetpriority"},
		{"AKS node pool named with a random suffix", `variable "n" { default = "gpu" }
resource "azurerm_kubernetes_cluster_node_pool" "p" {
  name                  = "${var.n}${substr(md5(uuid()), 0, 4)}"
  kubernetes_cluster_id = "id"
  vm_size               = "Standard_NC24ads_A100_v4"
}`, "azurerm_kubernetes_cluster_node_pool.p", "without:kubernetes.azure.com/scalesetpriority prefix:agentpool=gp prefix:kubernetes.azure.com/agentpool=gp"}, // cty drops the last character of a template's known start: what follows could combine with it (Unicode normalization)
		{"AKS node pool", `resource "azurerm_kubernetes_cluster_node_pool" "p" {
  name                  = "a100"
  kubernetes_cluster_id = "id"
  vm_size               = "Standard_NC24ads_A100_v4"
}`, "azurerm_kubernetes_cluster_node_pool.p", "agentpool=a100 kubernetes.azure.com/agentpool=a100 without:kubernetes.azure.com/scalesetpriority"},
		// The labels the clouds put on the nodes of a pool for its capacity.
		{"EKS spot node group", eksGroup(`"SPOT"`), "aws_eks_node_group.g", "eks.amazonaws.com/capacityType=SPOT eks.amazonaws.com/nodegroup=gpu"},
		{"EKS Capacity Block node group", eksGroup(`"CAPACITY_BLOCK"`), "aws_eks_node_group.g", "eks.amazonaws.com/capacityType=CAPACITY_BLOCK eks.amazonaws.com/nodegroup=gpu"},
		{"EKS node group whose capacity is known at apply", `variable "capacity" { type = string }
` + eksGroup("var.capacity"), "aws_eks_node_group.g", "eks.amazonaws.com/nodegroup=gpu unknown:eks.amazonaws.com/capacityType"},
		{"GKE Spot pool", l4Pool("spot = true"), "google_container_node_pool.l4", "cloud.google.com/gke-accelerator=nvidia-l4 cloud.google.com/gke-nodepool=l4-pool cloud.google.com/gke-spot=true without:cloud.google.com/gke-flex-start without:cloud.google.com/gke-preemptible without:sandbox.gke.io/runtime"},
		{"GKE Spot pool whose preemptible flag is known at apply", `variable "preemptible" { type = bool }
` + l4Pool("spot = true\n    preemptible = var.preemptible"), "google_container_node_pool.l4", "cloud.google.com/gke-accelerator=nvidia-l4 cloud.google.com/gke-nodepool=l4-pool cloud.google.com/gke-spot=true without:cloud.google.com/gke-flex-start without:cloud.google.com/gke-preemptible without:sandbox.gke.io/runtime"},
		{"GKE preemptible default pool", `resource "google_container_cluster" "c" {
  location = "us-central1-a"
  node_config {
    machine_type = "g2-standard-8"
    preemptible  = true
  }
}`, "google_container_cluster.c.default_node_pool", "cloud.google.com/gke-accelerator=nvidia-l4 cloud.google.com/gke-nodepool=default-pool cloud.google.com/gke-preemptible=true without:cloud.google.com/gke-flex-start without:cloud.google.com/gke-spot without:sandbox.gke.io/runtime"},
		{"GKE flex-start pool block", `resource "google_container_cluster" "c" {
  location = "us-central1-a"
  node_pool {
    name = "gpu"
    node_config {
      machine_type = "a3-highgpu-8g"
      flex_start   = true
    }
  }
}`, `google_container_cluster.c.node_pool["gpu"]`, "cloud.google.com/gke-accelerator=nvidia-h100-80gb cloud.google.com/gke-flex-start=true cloud.google.com/gke-nodepool=gpu without:cloud.google.com/gke-preemptible without:cloud.google.com/gke-spot without:sandbox.gke.io/runtime"},
		{"GKE pool whose capacity is known at apply", `variable "spot" { type = bool }
` + l4Pool("spot = var.spot"), "google_container_node_pool.l4", "cloud.google.com/gke-accelerator=nvidia-l4 cloud.google.com/gke-nodepool=l4-pool unknown:cloud.google.com/gke-flex-start unknown:cloud.google.com/gke-preemptible unknown:cloud.google.com/gke-spot without:sandbox.gke.io/runtime"},
		// GKE names the GPU type of a pool's nodes: its accelerator block's, or its machine type's.
		{"GKE N1 pool with T4s", `resource "google_container_node_pool" "t4" {
  name     = "t4"
  cluster  = "c"
  location = "us-central1-a"
  node_config {
    machine_type = "n1-standard-8"
    guest_accelerator {
      type  = "nvidia-tesla-t4"
      count = 1
    }
  }
}`, "google_container_node_pool.t4", "cloud.google.com/gke-accelerator=nvidia-tesla-t4 cloud.google.com/gke-nodepool=t4" + gkeRegular},
		{"GKE pool whose machine is known at apply", `variable "machine" { type = string }
resource "google_container_node_pool" "p" {
  name     = "p"
  cluster  = "c"
  location = "us-central1-a"
  node_config {
    machine_type = var.machine
  }
}`, "google_container_node_pool.p", "cloud.google.com/gke-nodepool=p unknown:cloud.google.com/gke-accelerator" + gkeRegular},
		{"AKS spot pool", aksPool(`"Spot"`), "azurerm_kubernetes_cluster_node_pool.p", "agentpool=a100 kubernetes.azure.com/agentpool=a100 kubernetes.azure.com/scalesetpriority=spot"},
		{"AKS pool whose priority is known at apply", `variable "priority" { type = string }
` + aksPool("var.priority"), "azurerm_kubernetes_cluster_node_pool.p", "agentpool=a100 kubernetes.azure.com/agentpool=a100 unknown:kubernetes.azure.com/scalesetpriority"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := ParseSource("main.tf", []byte(tc.src), Options{})
			r := groupAt(t, res, tc.address)
			var got []string
			for k, v := range r.NodeLabels.Labels {
				got = append(got, k+"="+v)
			}
			slices.Sort(got)
			for _, k := range r.NodeLabels.Unknown {
				got = append(got, "unknown:"+k)
			}
			for _, k := range r.NodeLabels.Without {
				got = append(got, "without:"+k)
			}
			var prefixes []string
			for k, v := range r.NodeLabels.Prefixes {
				prefixes = append(prefixes, "prefix:"+k+"="+v)
			}
			slices.Sort(prefixes)
			got = append(got, prefixes...)
			if r.NodeLabels.Partial {
				got = append(got, "partial")
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("labels %q, want %q", s, tc.want)
			}
			for _, u := range r.Unresolved {
				if strings.Contains(u.Attribute, "label") || strings.Contains(u.Attribute, "name") {
					t.Errorf("unresolved by its labels or name: %+v", u)
				}
			}
		})
	}
}

// A pod declared through Terraform that selects one of the configuration's GPU node groups by
// its labels runs on that group, whatever the other groups run; a selection no group carries,
// or one that groups of different kinds carry, leaves the pod's node unresolved with a note.
func TestPodSelectsANodeGroup(t *testing.T) {
	pool := func(name, machine, extra string) string {
		return `resource "google_container_node_pool" "` + name + `" {
  name       = "` + name + `"
  cluster    = "ml"
  location   = "europe-west4-a"
  node_count = 2
  node_config {
    machine_type = "` + machine + `"
    ` + extra + `
  }
}
`
	}
	const t4 = "guest_accelerator {\n      type  = \"nvidia-tesla-t4\"\n      count = 1\n    }"
	pools := pool("l4", "g2-standard-24", "spot = true\n    labels = { workload = \"serve\" }") +
		pool("t4", "n1-standard-8", t4+"\n    labels = { workload = \"batch\" }") +
		pool("a100", "a2-highgpu-1g", "labels = { workload = \"batch\" }")
	cases := []struct {
		name, selector string
		want           string // type/purchase/region/gpus, or "" for a pod left unresolved
		note           string
	}{
		{"by the GKE pool label", ` "cloud.google.com/gke-nodepool" = "l4" `,
			"g2-standard-24/spot/europe-west4/ from google_container_node_pool.l4 (the pod selects cloud.google.com/gke-nodepool=l4)", ""},
		{"an N1 pool keeps its GPUs", ` "cloud.google.com/gke-nodepool" = "t4" `,
			"n1-standard-8/on_demand/europe-west4/nvidia-tesla-t4 from google_container_node_pool.t4 (the pod selects cloud.google.com/gke-nodepool=t4)", ""},
		{"by a declared label", ` workload = "serve" `,
			"g2-standard-24/spot/europe-west4/ from google_container_node_pool.l4 (the pod selects workload=serve)", ""},
		{"a label two kinds carry", ` workload = "batch" `, "",
			"the pod selects workload=batch, which node groups of different kinds carry (google_container_node_pool.t4: n1-standard-8 with nvidia-tesla-t4 on_demand in europe-west4; google_container_node_pool.a100: a2-highgpu-1g on_demand in europe-west4)"},
		{"a pool that is not here", ` "cloud.google.com/gke-nodepool" = "h100" `, "",
			"the pod selects cloud.google.com/gke-nodepool=h100, which none of the node groups read with it carries"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := ParseSource("main.tf", []byte(pools+podOf("p", tc.selector)), Options{})
			pod := podNode(t, res, tc.want)
			if tc.note != "" && (len(pod.Unresolved) == 0 || !strings.HasPrefix(pod.Unresolved[0].Reason, tc.note+": ")) {
				t.Errorf("unresolved %+v\nwant %q", pod.Unresolved, tc.note)
			}
			if tc.want == "" {
				return
			}
			if g := groupRefs(pod.Pod); g == "" || !strings.Contains(tc.want, "from "+g+" (") {
				t.Errorf("node group %q", g)
			}
		})
	}
}

// A plan's node groups carry their labels and taints too; values the plan knows only after
// apply (after_unknown) are recorded as such.
func TestNodeGroupLabelsInAPlan(t *testing.T) {
	plan := `{"format_version":"1.2",
"configuration":{"provider_config":{"aws":{"name":"aws","expressions":{"region":{"constant_value":"us-east-2"}}}},
 "root_module":{"resources":[
  {"address":"aws_eks_node_group.a","mode":"managed","type":"aws_eks_node_group","name":"a","provider_config_key":"aws","expressions":{}},
  {"address":"aws_eks_node_group.b","mode":"managed","type":"aws_eks_node_group","name":"b","provider_config_key":"aws","expressions":{}}]}},
"planned_values":{"root_module":{"resources":[
  {"address":"aws_eks_node_group.a","mode":"managed","type":"aws_eks_node_group","name":"a","values":{"node_group_name":"gpu","instance_types":["g6.xlarge"],"labels":{"workload":"serve"},"taint":[{"key":"nvidia.com/gpu","value":"true","effect":"NO_SCHEDULE"}]}},
  {"address":"aws_eks_node_group.b","mode":"managed","type":"aws_eks_node_group","name":"b","values":{"node_group_name_prefix":"batch-","instance_types":["g6.xlarge"]}}]}},
"resource_changes":[
  {"address":"aws_eks_node_group.a","mode":"managed","type":"aws_eks_node_group","name":"a","change":{"actions":["create"],"after":{"node_group_name":"gpu","instance_types":["g6.xlarge"],"labels":{"workload":"serve"},"taint":[{"key":"nvidia.com/gpu","value":"true","effect":"NO_SCHEDULE"}]},"after_unknown":{}}},
  {"address":"aws_eks_node_group.b","mode":"managed","type":"aws_eks_node_group","name":"b","change":{"actions":["create"],"after":{"node_group_name_prefix":"batch-","instance_types":["g6.xlarge"]},"after_unknown":{"node_group_name":true,"labels":true,"taint":true,"capacity_type":true}}}]}`
	res := ParsePlan("plan.json", []byte(plan))
	got := map[string]string{}
	for _, r := range res.Resources {
		if r.NodeLabels == nil {
			t.Fatalf("%s: no node labels", r.Address)
		}
		got[r.Address] = fmt.Sprintf("%v %v %v %v %v %v", r.NodeLabels.Labels, r.NodeLabels.Unknown, r.NodeLabels.Prefixes, r.NodeLabels.Partial, r.NodeLabels.Taints, r.NodeLabels.TaintsUnknown)
	}
	want := map[string]string{
		"aws_eks_node_group.a": "map[eks.amazonaws.com/capacityType:ON_DEMAND eks.amazonaws.com/nodegroup:gpu workload:serve] [] map[] false [nvidia.com/gpu=true:NoSchedule] false",
		"aws_eks_node_group.b": "map[] [eks.amazonaws.com/capacityType] map[eks.amazonaws.com/nodegroup:batch-] true [] true",
	}
	if len(res.Errors) != 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v\nwant %v\nerrors %+v", got, want, res.Errors)
	}
}

// Azure/aks, read through gpuguard's stand-in: its default pool carries agents_labels, its
// pools their node_labels; a pool it replaces before destroying is named with four random
// characters after its name, so a pod selects it by its labels, not by an exact pool name.
func TestPodsOnAStandInAKSCluster(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{"main.tf": `
module "aks" {
  source              = "Azure/aks/azurerm"
  location            = "westeurope"
  resource_group_name = "rg"
  agents_labels       = { role = "system" }
  node_pools = {
    a100 = { name = "a100", vm_size = "Standard_NC24ads_A100_v4", node_count = 2, node_labels = { workload = "llm" } }
    t4   = { name = "t4", vm_size = "Standard_NC4as_T4_v3", node_count = 1, create_before_destroy = false }
  }
}
provider "kubernetes" { host = module.aks.host }
` + podOf("llm", ` workload = "llm" `) + podOf("exact", ` "kubernetes.azure.com/agentpool" = "a100" `) + podOf("t4", ` agentpool = "t4" `)})
	res := ParseModuleDir(dir, Options{FileDirs: []string{dir}})
	got := map[string]string{}
	for _, r := range res.Resources {
		if r.Pod != nil {
			got[r.Address] = fmt.Sprintf("%s/%s %s", r.InstanceType, r.Region, groupRefs(r.Pod))
		}
	}
	want := map[string]string{
		"kubernetes_manifest.llm":   `Standard_NC24ads_A100_v4/westeurope module.aks.azurerm_kubernetes_cluster_node_pool.node_pool_create_before_destroy["a100"]`,
		"kubernetes_manifest.exact": "/westeurope ",
		"kubernetes_manifest.t4":    `Standard_NC4as_T4_v3/westeurope module.aks.azurerm_kubernetes_cluster_node_pool.node_pool_create_after_destroy["t4"]`,
	}
	if len(res.Errors) != 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %v\nwant %v\nerrors %+v", got, want, res.Errors)
	}
}

// Azure Verified Modules' AKS module declares its cluster as an azapi_resource: pods applied
// through Terraform take its region when it is the only cluster, and run on the agent pools
// whose labels (or exact name) they select.
func TestPodsOnAnAzureVerifiedAKSCluster(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{"main.tf": `
module "aks" {
  source    = "Azure/avm-res-containerservice-managedcluster/azurerm"
  name      = "ml"
  location  = "swedencentral"
  parent_id = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/ml"
  agent_pools = {
    a100 = { name = "a100", vm_size = "Standard_NC24ads_A100_v4", count_of = 2, node_labels = { workload = "llm" } }
  }
}
` + podOf("llm", ` workload = "llm" `) + podOf("exact", ` "kubernetes.azure.com/agentpool" = "a100" `) + podOf("elsewhere", ` workload = "batch" `)})
	res := ParseModuleDir(dir, Options{FileDirs: []string{dir}})
	got := map[string]string{}
	for _, r := range res.Resources {
		if r.Pod != nil {
			got[r.Address] = fmt.Sprintf("%s/%s %s", r.InstanceType, r.Region, groupRefs(r.Pod))
		}
	}
	pool := `module.aks.module.nodepools["a100"].azapi_resource.this[0]`
	want := map[string]string{
		"kubernetes_manifest.llm":   "Standard_NC24ads_A100_v4/swedencentral " + pool,
		"kubernetes_manifest.exact": "Standard_NC24ads_A100_v4/swedencentral " + pool,
		// On no pool of the module's: the cluster's region all the same.
		"kubernetes_manifest.elsewhere": "/swedencentral ",
	}
	if len(res.Errors) != 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %v\nwant %v\nerrors %+v", got, want, res.Errors)
	}
}

// A node group's maximum known only at apply is recorded as such (the estimator then cannot say
// whether the group holds the pods that select it); a known maximum, or none declared, is not.
func TestNodeGroupMaximumKnownAtApply(t *testing.T) {
	const vars = `variable "most" { type = number }
variable "autoscale" { type = bool }
`
	cases := []struct {
		name, src string
		max       int // 0: none
		unknown   bool
	}{
		{"EKS, known", `resource "aws_eks_node_group" "g" {
  cluster_name   = "c"
  instance_types = ["g5.xlarge"]
  scaling_config {
    desired_size = 1
    min_size     = 1
    max_size     = 4
  }
}`, 4, false},
		{"EKS, at apply", `resource "aws_eks_node_group" "g" {
  cluster_name   = "c"
  instance_types = ["g5.xlarge"]
  scaling_config {
    desired_size = 1
    min_size     = 1
    max_size     = var.most
  }
}`, 0, true},
		{"GKE, fixed", `resource "google_container_node_pool" "g" {
  cluster    = "c"
  location   = "us-central1-a"
  node_count = 2
  node_config { machine_type = "g2-standard-8" }
}`, 0, false},
		{"GKE, at apply", `resource "google_container_node_pool" "g" {
  cluster  = "c"
  location = "us-central1-a"
  autoscaling {
    min_node_count = 1
    max_node_count = var.most
  }
  node_config { machine_type = "g2-standard-8" }
}`, 0, true},
		{"AKS, autoscaled at apply", `resource "azurerm_kubernetes_cluster_node_pool" "g" {
  name                  = "gpu"
  kubernetes_cluster_id = "id"
  vm_size               = "Standard_NC24ads_A100_v4"
  auto_scaling_enabled  = true
  min_count             = 1
  max_count             = var.most
}`, 0, true},
		{"AKS, autoscaling itself at apply", `resource "azurerm_kubernetes_cluster_node_pool" "g" {
  name                  = "gpu"
  kubernetes_cluster_id = "id"
  vm_size               = "Standard_NC24ads_A100_v4"
  node_count            = 1
  auto_scaling_enabled  = var.autoscale
  max_count             = 3
}`, 0, true},
		{"AKS, not autoscaled", `resource "azurerm_kubernetes_cluster_node_pool" "g" {
  name                  = "gpu"
  kubernetes_cluster_id = "id"
  vm_size               = "Standard_NC24ads_A100_v4"
  node_count            = 2
}`, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := ParseSource("main.tf", []byte(vars+tc.src), Options{})
			if len(res.Resources) != 1 {
				t.Fatalf("resources %+v, errors %v", res.Resources, res.Errors)
			}
			r := res.Resources[0]
			got := 0
			if r.ScaleMax != nil {
				got = r.ScaleMax.Quantity
			}
			if got != tc.max || r.ScaleMaxUnknown != tc.unknown {
				t.Errorf("maximum %d, known only at apply %v; want %d, %v", got, r.ScaleMaxUnknown, tc.max, tc.unknown)
			}
		})
	}
}

// groupRefs names the node groups a pod runs on, "root|address" where the root is not the
// pod's own, separated by spaces.
func groupRefs(p *parser.PodGPUs) string {
	var out []string
	for _, g := range p.NodeGroups {
		if g.Root != "" {
			out = append(out, g.Root+"|"+g.Address)
		} else {
			out = append(out, g.Address)
		}
	}
	return strings.Join(out, " ")
}

// A node group's taints are read with its labels, with Kubernetes' names for their effects:
// EKS taint blocks, GKE node_config.taint blocks, AKS node_taints and the taints AKS adds itself
// (a spot pool's, a default pool's with only_critical_addons_enabled); the stand-ins of the
// registry modules pass theirs on. A taint known only at apply leaves the group's taints partly
// unknown, and makes nothing unresolved.
func TestNodeGroupTaints(t *testing.T) {
	// workloadTaint is a GKE node_config's taint block on the label workload.
	workloadTaint := func(value, effect string) string {
		return "    taint {\n      key    = \"workload\"\n      value  = \"" + value + "\"\n      effect = \"" + effect + "\"\n    }"
	}
	cases := []struct {
		name, src, address string
		want               string // taints, then "unknown" when some are known only at apply
	}{
		{"EKS node group", `resource "aws_eks_node_group" "g" {
  cluster_name    = "c"
  node_group_name = "gpu"
  instance_types  = ["g5.xlarge"]
  taint {
    key    = "nvidia.com/gpu"
    value  = "true"
    effect = "NO_SCHEDULE"
  }
  taint {
    key    = "dedicated"
    effect = "PREFER_NO_SCHEDULE"
  }
}`, "aws_eks_node_group.g", "nvidia.com/gpu=true:NoSchedule dedicated:PreferNoSchedule"},
		{"EKS node group, a taint from a variable", `variable "team" { type = string }
resource "aws_eks_node_group" "g" {
  cluster_name    = "c"
  node_group_name = "gpu"
  instance_types  = ["g5.xlarge"]
  taint {
    key    = "team"
    value  = var.team
    effect = "NO_EXECUTE"
  }
}`, "aws_eks_node_group.g", "unknown"},
		{"EKS node group, taints from a list known at apply", `variable "taints" { type = list(object({ key = string, value = string, effect = string })) }
resource "aws_eks_node_group" "g" {
  cluster_name    = "c"
  node_group_name = "gpu"
  instance_types  = ["g5.xlarge"]
  dynamic "taint" {
    for_each = var.taints
    content {
      key    = taint.value.key
      value  = taint.value.value
      effect = taint.value.effect
    }
  }
}`, "aws_eks_node_group.g", "unknown"},
		{"GKE node pool", `resource "google_container_node_pool" "p" {
  name     = "l4"
  cluster  = "c"
  location = "us-central1-a"
  node_config {
    machine_type = "g2-standard-8"
` + workloadTaint("serve", "NO_SCHEDULE") + `
  }
}`, "google_container_node_pool.p", "workload=serve:NoSchedule"},
		{"GKE cluster's pool block", `resource "google_container_cluster" "c" {
  location = "us-central1-a"
  node_pool {
    name = "gpu"
    node_config {
      machine_type = "g2-standard-8"
` + workloadTaint("batch", "NO_EXECUTE") + `
    }
  }
}`, `google_container_cluster.c.node_pool["gpu"]`, "workload=batch:NoExecute"},
		{"GKE cluster's default pool", `resource "google_container_cluster" "c" {
  location = "us-central1-a"
  node_config {
    machine_type = "g2-standard-8"
` + workloadTaint("serve", "NO_SCHEDULE") + `
  }
}`, "google_container_cluster.c.default_node_pool", "workload=serve:NoSchedule"},
		{"AKS spot pool", `resource "azurerm_kubernetes_cluster_node_pool" "p" {
  name                  = "a100"
  kubernetes_cluster_id = "id"
  vm_size               = "Standard_NC24ads_A100_v4"
  priority              = "Spot"
  node_taints           = ["sku=gpu:NoSchedule", "dedicated:NoExecute"]
}`, "azurerm_kubernetes_cluster_node_pool.p", "sku=gpu:NoSchedule dedicated:NoExecute kubernetes.azure.com/scalesetpriority=spot:NoSchedule"},
		{"AKS pool, taints known at apply", `variable "taints" { type = list(string) }
resource "azurerm_kubernetes_cluster_node_pool" "p" {
  name                  = "a100"
  kubernetes_cluster_id = "id"
  vm_size               = "Standard_NC24ads_A100_v4"
  node_taints           = var.taints
}`, "azurerm_kubernetes_cluster_node_pool.p", "unknown"},
		{"AKS default pool for critical add-ons", `resource "azurerm_kubernetes_cluster" "c" {
  location = "eastus"
  default_node_pool {
    name                         = "gpu"
    vm_size                      = "Standard_NC4as_T4_v3"
    node_count                   = 1
    only_critical_addons_enabled = true
  }
}`, "azurerm_kubernetes_cluster.c.default_node_pool", "CriticalAddonsOnly=true:NoSchedule"},
		{"AKS regular pool", `resource "azurerm_kubernetes_cluster_node_pool" "p" {
  name                  = "a100"
  kubernetes_cluster_id = "id"
  vm_size               = "Standard_NC24ads_A100_v4"
}`, "azurerm_kubernetes_cluster_node_pool.p", ""},
		{"the EKS module's stand-in", `module "eks" {
  source = "terraform-aws-modules/eks/aws"
  eks_managed_node_groups = {
    gpu = {
      instance_types = ["g6.xlarge"]
      taints = {
        gpu = { key = "nvidia.com/gpu", value = "true", effect = "NO_SCHEDULE" }
      }
    }
  }
}`, `module.eks.module.eks_managed_node_group["gpu"].aws_eks_node_group.this[0]`, "nvidia.com/gpu=true:NoSchedule"},
		{"the GKE module's stand-in", `module "gke" {
  source     = "terraform-google-modules/kubernetes-engine/google"
  region     = "us-central1"
  node_pools = [{ name = "l4", machine_type = "g2-standard-8" }]
  node_pools_taints = {
    all = [{ key = "team", value = "ml", effect = "NO_SCHEDULE" }]
    l4  = [{ key = "workload", value = "serve", effect = "PREFER_NO_SCHEDULE" }]
  }
}`, `module.gke.google_container_node_pool.pools["l4"]`, "team=ml:NoSchedule workload=serve:PreferNoSchedule"},
		{"the AKS module's stand-in", `module "aks" {
  source              = "Azure/aks/azurerm"
  location            = "westeurope"
  resource_group_name = "rg"
  node_pools = {
    a100 = { name = "a100", vm_size = "Standard_NC24ads_A100_v4", node_count = 1, create_before_destroy = false, priority = "Spot", node_taints = ["sku=a100:NoSchedule"] }
  }
}`, `module.aks.azurerm_kubernetes_cluster_node_pool.node_pool_create_after_destroy["a100"]`, "sku=a100:NoSchedule kubernetes.azure.com/scalesetpriority=spot:NoSchedule"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testutil.WriteFiles(t, dir, map[string]string{"main.tf": tc.src})
			res := ParseModuleDir(dir, Options{})
			r := groupAt(t, res, tc.address)
			var got []string
			for _, tt := range r.NodeLabels.Taints {
				got = append(got, tt.String())
			}
			if r.NodeLabels.TaintsUnknown {
				got = append(got, "unknown")
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("taints %q, want %q", s, tc.want)
			}
			for _, u := range r.Unresolved {
				if strings.Contains(u.Attribute, "taint") {
					t.Errorf("unresolved by its taints: %+v", u)
				}
			}
		})
	}
}

// The configuration's own workloads meet its node groups' taints: a typed workload that names
// no node runs on the groups whose taints it tolerates (the device's taint is tolerated for a
// pod that requests the device); one whose toleration block admits it to the group it selects
// runs there quietly, and one that selects the group without it is priced there with a warning
// at its block.
func TestWorkloadsMeetTheNodeGroupsTaints(t *testing.T) {
	const groups = `provider "aws" { region = "us-east-1" }
resource "aws_eks_node_group" "train" {
  cluster_name    = "ml"
  node_group_name = "train"
  instance_types  = ["p4d.24xlarge"]
  scaling_config {
    desired_size = 1
    min_size     = 0
    max_size     = 2
  }
  taint {
    key    = "dedicated"
    value  = "training"
    effect = "NO_SCHEDULE"
  }
}
resource "aws_eks_node_group" "serve" {
  cluster_name    = "ml"
  node_group_name = "serve"
  instance_types  = ["g6.xlarge"]
  scaling_config {
    desired_size = 2
    min_size     = 1
    max_size     = 4
  }
  taint {
    key    = "nvidia.com/gpu"
    value  = "true"
    effect = "NO_SCHEDULE"
  }
}
`
	job := func(name, spec string) string {
		return `resource "kubernetes_job_v1" "` + name + `" {
  metadata {
    name      = "` + name + `"
    namespace = "ml"
  }
  spec {
    template {
      metadata {}
      spec {
        ` + spec + `
        container {
          name  = "c"
          image = "x"
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
	const toTrain = `node_selector = { "eks.amazonaws.com/nodegroup" = "train" }`
	const tolerate = `toleration {
          key      = "dedicated"
          operator = "Equal"
          value    = "training"
          effect   = "NoSchedule"
        }`
	src := groups + job("api", "") + job("train", toTrain+"\n        "+tolerate) + job("eval", toTrain)
	res := ParseSource("main.tf", []byte(src), Options{})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
	got := map[string]string{}
	for _, r := range res.Resources {
		if r.Pod != nil {
			got[r.Address] = r.InstanceType + " " + groupRefs(r.Pod)
		}
	}
	want := map[string]string{
		"kubernetes_job_v1.api":   "g6.xlarge aws_eks_node_group.serve",
		"kubernetes_job_v1.train": "p4d.24xlarge aws_eks_node_group.train",
		"kubernetes_job_v1.eval":  "p4d.24xlarge aws_eks_node_group.train",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	var warns []string
	for _, w := range res.Warnings {
		warns = append(warns, fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Message))
	}
	const stuck = "main.tf:80: kubernetes_job_v1.eval: Job/ml/eval: its pods select eks.amazonaws.com/nodegroup=train, but do not tolerate the taints of the node groups that carry it: aws_eks_node_group.train (taint dedicated=training:NoSchedule)"
	if len(warns) != 1 || !strings.HasPrefix(warns[0], stuck) {
		t.Errorf("warnings %q\nwant one starting %q", warns, stuck)
	}
}

// groupAt returns the node group at an address among a configuration's resources, failing the
// test when there is none or it carries no node labels.
func groupAt(t *testing.T, res parser.Result, address string) *parser.Resource {
	t.Helper()
	for i := range res.Resources {
		if r := &res.Resources[i]; r.Address == address && r.NodeLabels != nil {
			return r
		}
	}
	t.Fatalf("no node labels on %s: %+v (errors %v)", address, res.Resources, res.Errors)
	return nil
}

// podOnGroups checks the one pod of res: placed as want says (podNode) and, with a note, priced
// off the node groups with that note; without one, on the group want names ("from <group> (");
// unresolved for the note's reason when want is "".
func podOnGroups(t *testing.T, res parser.Result, want, note string) {
	t.Helper()
	pod := podNode(t, res, want)
	switch g := groupRefs(pod.Pod); {
	case want == "" && (len(pod.Unresolved) == 0 || !strings.HasPrefix(pod.Unresolved[0].Reason, note+": ")):
		t.Errorf("unresolved %+v\nwant %q", pod.Unresolved, note)
	case want != "" && note != "" && (g != "" || !slices.Contains(pod.Notes, note)):
		t.Errorf("on node groups %q, notes %q\nwant %q", g, pod.Notes, note)
	case want != "" && note == "" && !strings.Contains(want, "from "+g+" ("):
		t.Errorf("node group %q", g)
	}
}

// A pod that selects the label a cloud puts on a managed node group's nodes for their capacity
// (EKS's capacityType, GKE's gke-spot, AKS's scalesetpriority) or GPU type (GKE's
// gke-accelerator) runs on the groups of that capacity and type. A GKE pool of regular VMs lacks
// gke-spot even when its own labels are known only at apply; a pod that also pins its instance
// type runs on the groups of that type.
func TestPodSelectsANodeGroupByCapacity(t *testing.T) {
	const groups = `provider "aws" { region = "us-east-1" }
variable "labels" { type = map(string) }
resource "aws_eks_node_group" "od" {
  cluster_name    = "ml"
  node_group_name = "od"
  instance_types  = ["g5.xlarge"]
}
resource "aws_eks_node_group" "spot_l4" {
  cluster_name    = "ml"
  node_group_name = "spot-l4"
  instance_types  = ["g6.xlarge"]
  capacity_type   = "SPOT"
}
resource "aws_eks_node_group" "spot_l40s" {
  cluster_name    = "ml"
  node_group_name = "spot-l40s"
  instance_types  = ["g6e.xlarge"]
  capacity_type   = "SPOT"
}
resource "google_container_node_pool" "regular" {
  name     = "regular"
  cluster  = "ml"
  location = "us-central1-a"
  node_config {
    machine_type = "g2-standard-8"
    labels       = var.labels
  }
}
resource "google_container_node_pool" "spot" {
  name     = "spot"
  cluster  = "ml"
  location = "us-central1-a"
  node_config {
    machine_type = "a2-highgpu-1g"
    spot         = true
  }
}
resource "google_container_node_pool" "spot_l4" {
  name     = "spot-l4"
  cluster  = "ml"
  location = "us-central1-a"
  node_config {
    machine_type = "g2-standard-8"
    spot         = true
  }
}
resource "azurerm_kubernetes_cluster_node_pool" "regular" {
  name                  = "regular"
  kubernetes_cluster_id = "id"
  vm_size               = "Standard_NC24ads_A100_v4"
}
resource "azurerm_kubernetes_cluster_node_pool" "spot" {
  name                  = "spot"
  kubernetes_cluster_id = "id"
  vm_size               = "Standard_NC4as_T4_v3"
  priority              = "Spot"
}
`
	cases := []struct {
		name, selector string
		want           string // type/purchase/region/gpus from source, or "" for a pod left unresolved
		note           string // why it is unresolved, or a note on a pod priced off the groups
	}{
		{"EKS on-demand", ` "eks.amazonaws.com/capacityType" = "ON_DEMAND" `,
			"g5.xlarge/on_demand/us-east-1/ from aws_eks_node_group.od (the pod selects eks.amazonaws.com/capacityType=ON_DEMAND)", ""},
		{"EKS spot, two kinds", ` "eks.amazonaws.com/capacityType" = "SPOT" `, "",
			"the pod selects eks.amazonaws.com/capacityType=SPOT, which node groups of different kinds carry (aws_eks_node_group.spot_l4: g6.xlarge spot in us-east-1; aws_eks_node_group.spot_l40s: g6e.xlarge spot in us-east-1)"},
		{"EKS spot of a pinned type", ` "eks.amazonaws.com/capacityType" = "SPOT", "node.kubernetes.io/instance-type" = "g6e.xlarge" `,
			"g6e.xlarge/spot/us-east-1/ from aws_eks_node_group.spot_l40s (the pod selects eks.amazonaws.com/capacityType=SPOT)", ""},
		{"EKS on-demand of a type no group runs", ` "eks.amazonaws.com/capacityType" = "ON_DEMAND", "node.kubernetes.io/instance-type" = "g6.xlarge" `,
			"g6.xlarge/on_demand/us-east-1/ from nodeSelector/affinity instance-type",
			"the pod selects eks.amazonaws.com/capacityType=ON_DEMAND, which aws_eks_node_group.od carries, but pins g6.xlarge, which that group does not run: priced at g6.xlarge"},
		{"EKS Capacity Block, none here", ` "eks.amazonaws.com/capacityType" = "CAPACITY_BLOCK" `, "",
			"the pod selects eks.amazonaws.com/capacityType=CAPACITY_BLOCK, which none of the node groups read with it carries"},
		{"GKE spot of a GPU type", ` "cloud.google.com/gke-spot" = "true", "cloud.google.com/gke-accelerator" = "nvidia-l4" `,
			"g2-standard-8/spot/us-central1/ from google_container_node_pool.spot_l4 (the pod selects cloud.google.com/gke-accelerator=nvidia-l4, cloud.google.com/gke-spot=true)", ""},
		{"GKE spot, two kinds", ` "cloud.google.com/gke-spot" = "true" `, "",
			"the pod selects cloud.google.com/gke-spot=true, which node groups of different kinds carry (google_container_node_pool.spot: a2-highgpu-1g spot in us-central1; google_container_node_pool.spot_l4: g2-standard-8 spot in us-central1)"},
		{"GKE GPU type of one pool", ` "cloud.google.com/gke-accelerator" = "nvidia-tesla-a100" `,
			"a2-highgpu-1g/spot/us-central1/ from google_container_node_pool.spot (the pod selects cloud.google.com/gke-accelerator=nvidia-tesla-a100)", ""},
		{"GKE GPU type of no pool", ` "cloud.google.com/gke-accelerator" = "nvidia-h100-80gb" `,
			"/on_demand//nvidia-h100-80gb from nodeSelector/affinity gke-accelerator",
			"the pod selects cloud.google.com/gke-accelerator=nvidia-h100-80gb, which none of the node groups read with it carries"},
		{"AKS spot", ` "kubernetes.azure.com/scalesetpriority" = "spot" `,
			"Standard_NC4as_T4_v3/spot// from azurerm_kubernetes_cluster_node_pool.spot (the pod selects kubernetes.azure.com/scalesetpriority=spot)", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := ParseSource("main.tf", []byte(groups+podOf("p", tc.selector)), Options{})
			podOnGroups(t, res, tc.want, tc.note)
		})
	}
}
