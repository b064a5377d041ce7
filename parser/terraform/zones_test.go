package terraform

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// testSubnets are a subnet in us-east-1a, and two (count) in us-east-1c and us-east-1b.
const testSubnets = `resource "aws_subnet" "a" {
  vpc_id            = "vpc-1"
  cidr_block        = "10.0.1.0/24"
  availability_zone = "us-east-1a"
}
resource "aws_subnet" "gpu" {
  count             = 2
  vpc_id            = "vpc-1"
  cidr_block        = "10.0.${count.index + 3}.0/24"
  availability_zone = element(["us-east-1c", "us-east-1b"], count.index)
}
`

// A node group says which zones its nodes run in, as their topology.kubernetes.io/zone label
// names them: a GKE pool's node_locations (or its cluster's, or a zonal cluster's zone), an AKS
// pool's availability zones (REGION-N), an EKS node group's or Auto Scaling group's subnets'
// zones. Where the configuration does not say (a regional GKE pool left to GKE's default zones,
// subnets passed in), the zones are not named.
func TestNodeGroupZones(t *testing.T) {
	const gke = `provider "google" { project = "p" }
resource "google_container_cluster" "ml" {
  name     = "ml"
  location = "%s"
  %s
  remove_default_node_pool = true
  initial_node_count       = 1
}
resource "google_container_node_pool" "l4" {
  name       = "l4"
  cluster    = google_container_cluster.ml.id
  node_count = 2
  %s
  node_config { machine_type = "g2-standard-8" }
}
`
	// The pool a zonal cluster creates runs in the cluster's zone and in those node_locations
	// adds: initial_node_count nodes in each.
	const gkeDefault = `provider "google" { project = "p" }
resource "google_container_cluster" "ml" {
  name               = "ml"
  location           = "us-central1-a"
  node_locations     = ["us-central1-b"]
  initial_node_count = 2
  node_config { machine_type = "g2-standard-8" }
}
`
	const aks = `provider "azurerm" {
  features {}
}
resource "azurerm_kubernetes_cluster" "ml" {
  name                = "ml"
  location            = "East US 2"
  resource_group_name = "rg"
  dns_prefix          = "ml"
  default_node_pool {
    name       = "system"
    vm_size    = "Standard_NC24ads_A100_v4"
    node_count = 1
    %s
  }
}
resource "azurerm_kubernetes_cluster_node_pool" "gpu" {
  name                  = "gpu"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.ml.id
  vm_size               = "Standard_NC24ads_A100_v4"
  node_count            = 1
  %s
}
`
	// An ARM managed cluster's agent pool profiles, and an agent pool of its own (azapi).
	const azapi = `resource "azapi_resource" "aks" {
  type      = "Microsoft.ContainerService/managedClusters@2025-05-01"
  name      = "ml"
  parent_id = "/subscriptions/s/resourceGroups/ml"
  location  = "West Europe"
  body = {
    properties = {
      agentPoolProfiles = [
        { name = "a100", vmSize = "Standard_NC24ads_A100_v4", count = 1, availabilityZones = ["3", "1"] },
      ]
    }
  }
}
resource "azapi_resource" "t4" {
  type      = "Microsoft.ContainerService/managedClusters/agentPools@2025-05-01"
  name      = "t4"
  parent_id = azapi_resource.aks.id
  body = {
    properties = { vmSize = "Standard_NC4as_T4_v3", count = 1, availabilityZones = ["2"] }
  }
}
`
	const eks = `provider "aws" { region = "us-east-1" }
variable "subnets" {
  type    = list(string)
  default = ["subnet-0a1", "subnet-0b2"]
}
` + testSubnets + `data "aws_subnet" "found" {
  vpc_id            = "vpc-1"
  availability_zone = "us-east-1f"
}
data "aws_subnet" "tagged" {
  vpc_id = "vpc-1"
  tags   = { tier = "gpu" }
}
resource "aws_subnet" "by_id" {
  vpc_id               = "vpc-1"
  cidr_block           = "10.0.2.0/24"
  availability_zone_id = "use1-az2"
}
resource "aws_eks_node_group" "gpu" {
  cluster_name    = "ml"
  node_group_name = "gpu"
  node_role_arn   = "arn:aws:iam::1:role/n"
  subnet_ids      = %s
  instance_types  = ["g6.xlarge"]
  scaling_config {
    desired_size = 2
    min_size     = 0
    max_size     = 4
  }
}
resource "aws_autoscaling_group" "self" {
  name             = "self"
  desired_capacity = 1
  min_size         = 0
  max_size         = 2
  %s
  launch_template {
    id      = aws_launch_template.gpu.id
    version = "$Latest"
  }
  tag {
    key                 = "kubernetes.io/cluster/ml"
    value               = "owned"
    propagate_at_launch = true
  }
}
resource "aws_launch_template" "gpu" {
  name          = "gpu"
  instance_type = "g6.xlarge"
}
`
	for _, c := range []struct {
		name, src, addr string
		zones           []string // nil: not named
		nodes           int      // the pool's nodes, 0 when not checked
	}{
		{"a GKE pool's own node_locations", fmt.Sprintf(gke, "us-central1", "", `node_locations = ["us-central1-c", "us-central1-a"]`), "google_container_node_pool.l4",
			[]string{"us-central1-a", "us-central1-c"}, 4},
		{"a zonal cluster's zone", fmt.Sprintf(gke, "us-central1-a", "", ""), "google_container_node_pool.l4", []string{"us-central1-a"}, 2},
		{"a zonal cluster's zone and its node_locations", fmt.Sprintf(gke, "us-central1-a", `node_locations = ["us-central1-b"]`, ""), "google_container_node_pool.l4",
			[]string{"us-central1-a", "us-central1-b"}, 4},
		{"a regional cluster's node_locations", fmt.Sprintf(gke, "us-central1", `node_locations = ["us-central1-f"]`, ""), "google_container_node_pool.l4", []string{"us-central1-f"}, 2},
		{"a zonal cluster's default pool: its zone and node_locations", gkeDefault, "google_container_cluster.ml.default_node_pool", []string{"us-central1-a", "us-central1-b"}, 4},
		{"a regional cluster left to GKE's default zones", fmt.Sprintf(gke, "us-central1", "", ""), "google_container_node_pool.l4", nil, 6},
		{"an AKS pool's zones", fmt.Sprintf(aks, "", `zones = ["2", "1"]`), "azurerm_kubernetes_cluster_node_pool.gpu", []string{"eastus2-1", "eastus2-2"}, 0},
		{"an AKS pool's zones before provider 3.0", fmt.Sprintf(aks, "", `availability_zones = ["3"]`), "azurerm_kubernetes_cluster_node_pool.gpu", []string{"eastus2-3"}, 0},
		{"an AKS pool in no zone", fmt.Sprintf(aks, "", ""), "azurerm_kubernetes_cluster_node_pool.gpu", nil, 0},
		{"an AKS cluster's default pool", fmt.Sprintf(aks, `zones = ["1"]`, ""), "azurerm_kubernetes_cluster.ml.default_node_pool", []string{"eastus2-1"}, 0},
		{"an ARM agent pool profile's zones", azapi, `azapi_resource.aks.agentPoolProfiles["a100"]`, []string{"westeurope-1", "westeurope-3"}, 0},
		{"an ARM agent pool's zones, in its cluster's region", azapi, "azapi_resource.t4", []string{"westeurope-2"}, 0},
		{"an EKS group's subnets", fmt.Sprintf(eks, "[aws_subnet.a.id]", ""), "aws_eks_node_group.gpu", []string{"us-east-1a"}, 0},
		{"an EKS group's subnets by splat", fmt.Sprintf(eks, "aws_subnet.gpu[*].id", ""), "aws_eks_node_group.gpu", []string{"us-east-1b", "us-east-1c"}, 0},
		{"an EKS group's subnets passed in", fmt.Sprintf(eks, "var.subnets", ""), "aws_eks_node_group.gpu", nil, 0},
		{"a subnet by zone ID", fmt.Sprintf(eks, "[aws_subnet.a.id, aws_subnet.by_id.id]", ""), "aws_eks_node_group.gpu", nil, 0},
		{"a subnet looked up in its zone", fmt.Sprintf(eks, "[data.aws_subnet.found.id, aws_subnet.a.id]", ""), "aws_eks_node_group.gpu", []string{"us-east-1a", "us-east-1f"}, 0},
		{"a subnet looked up by its tags", fmt.Sprintf(eks, "[data.aws_subnet.tagged.id]", ""), "aws_eks_node_group.gpu", nil, 0},
		{"a subnet one of a resource and a data source", fmt.Sprintf(eks, "[coalesce(data.aws_subnet.found.id, aws_subnet.a.id)]", ""), "aws_eks_node_group.gpu", nil, 0},
		{"a subnet one of two", fmt.Sprintf(eks, "[coalesce(aws_subnet.a.id, aws_subnet.gpu[0].id)]", ""), "aws_eks_node_group.gpu", nil, 0},
		{"a subnet and a variable's", fmt.Sprintf(eks, "concat([aws_subnet.a.id], var.subnets)", ""), "aws_eks_node_group.gpu", nil, 0},
		{"an Auto Scaling group's availability_zones", fmt.Sprintf(eks, "[aws_subnet.a.id]", `availability_zones = ["us-east-1d"]`), "aws_autoscaling_group.self", []string{"us-east-1d"}, 0},
		{"an Auto Scaling group's vpc_zone_identifier", fmt.Sprintf(eks, "[aws_subnet.a.id]", `vpc_zone_identifier = aws_subnet.gpu[*].id`), "aws_autoscaling_group.self", []string{"us-east-1b", "us-east-1c"}, 0},
	} {
		res := ParseSource("main.tf", []byte(c.src), Options{})
		if len(res.Errors) > 0 {
			t.Errorf("%s: errors %v", c.name, res.Errors)
		}
		r, ok := byAddress(t, res)[c.addr]
		if !ok || r.NodeLabels == nil {
			t.Errorf("%s: no node group %s among %d resources", c.name, c.addr, len(res.Resources))
			continue
		}
		if !slices.Equal(r.NodeLabels.Zones, c.zones) || (r.NodeLabels.Zones == nil) != (c.zones == nil) {
			t.Errorf("%s: zones %q, want %q", c.name, r.NodeLabels.Zones, c.zones)
		}
		if c.nodes > 0 && r.Quantity != c.nodes {
			t.Errorf("%s: %d nodes, want %d", c.name, r.Quantity, c.nodes)
		}
	}
}

// The stand-ins of the registry's EKS, GKE and AKS modules pass the zones on: the EKS module's
// subnet_ids (a node group's own over the module's), the GKE module's zones (a zonal cluster's
// first, the others its node locations) and a pool's node_locations, the AKS module's
// agents_availability_zones and each node pool's zones.
func TestNodeGroupZonesThroughModules(t *testing.T) {
	src := `provider "aws" { region = "us-east-1" }
provider "azurerm" {
  features {}
}
` + testSubnets + `module "eks" {
  source     = "terraform-aws-modules/eks/aws"
  version    = "~> 20.0"
  name       = "ml"
  subnet_ids = aws_subnet.gpu[*].id
  eks_managed_node_groups = {
    gpu    = { instance_types = ["g6.xlarge"] }
    pinned = { instance_types = ["g6.xlarge"], subnet_ids = [aws_subnet.a.id] }
  }
}
module "gke" {
  source     = "terraform-google-modules/kubernetes-engine/google"
  version    = "~> 35.0"
  project_id = "p"
  name       = "ml"
  region     = "us-central1"
  regional   = false
  zones      = ["us-central1-a", "us-central1-b"]
  node_pools = [
    { name = "l4", machine_type = "g2-standard-8", autoscaling = false },
    { name = "l4-f", machine_type = "g2-standard-8", autoscaling = false, node_locations = "us-central1-f" },
  ]
}
module "aks" {
  source                    = "Azure/aks/azurerm"
  version                   = "~> 9.0"
  resource_group_name       = "ml"
  location                  = "eastus"
  agents_size               = "Standard_NC24ads_A100_v4"
  agents_availability_zones = ["1", "2"]
  node_pools = {
    gpu = { name = "gpu", vm_size = "Standard_NC24ads_A100_v4", node_count = 1, zones = ["3"] }
  }
}
`
	res := ParseSource("main.tf", []byte(src), Options{})
	zones := map[string]string{}
	for _, r := range res.Resources {
		if r.NodeLabels != nil {
			zones[r.Address] = strings.Join(r.NodeLabels.Zones, ",")
		}
	}
	want := map[string]string{
		`module.eks.module.eks_managed_node_group["gpu"].aws_eks_node_group.this[0]`:             "us-east-1b,us-east-1c",
		`module.eks.module.eks_managed_node_group["pinned"].aws_eks_node_group.this[0]`:          "us-east-1a",
		`module.aks.azurerm_kubernetes_cluster.main.default_node_pool`:                           "eastus-1,eastus-2",
		`module.gke.google_container_node_pool.pools["l4"]`:                                      "us-central1-a,us-central1-b",
		`module.gke.google_container_node_pool.pools["l4-f"]`:                                    "us-central1-f",
		`module.aks.azurerm_kubernetes_cluster_node_pool.node_pool_create_before_destroy["gpu"]`: "eastus-3",
	}
	if !maps.Equal(zones, want) {
		t.Errorf("zones %q\nwant %q (errors %v)", zones, want, res.Errors)
	}
}

// Subnets made by terraform-aws-modules/vpc/aws name their zones through gpuguard's stand-in:
// the module puts its n-th subnet of a kind in the n-th of azs, cycling, so a node group
// launched into module.vpc.private_subnets, or some of them, runs in those zones. Where azs are
// zone IDs or are read from the provider, no zone is named, and the module is read without a
// warning, since it declares no machines.
func TestNodeGroupZonesFromTheVPCModule(t *testing.T) {
	src := `provider "aws" { region = "us-east-1" }
data "aws_availability_zones" "available" {}
module "vpc" {
  source                 = "terraform-aws-modules/vpc/aws"
  version                = "~> 5.0"
  name                   = "ml"
  cidr                   = "10.0.0.0/16"
  azs                    = ["us-east-1a", "us-east-1b", "us-east-1c"]
  private_subnets        = ["10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24", "10.0.4.0/24"]
  public_subnets         = ["10.0.101.0/24"]
  intra_subnets          = ["10.0.51.0/24", "10.0.52.0/24"]
  enable_nat_gateway     = true
  one_nat_gateway_per_az = true
}
module "vpc_ids" {
  source          = "terraform-aws-modules/vpc/aws"
  azs             = ["use1-az1", "use1-az2"]
  private_subnets = ["10.1.1.0/24", "10.1.2.0/24"]
}
module "vpc_looked_up" {
  source          = "terraform-aws-modules/vpc/aws"
  azs             = slice(data.aws_availability_zones.available.names, 0, 2)
  private_subnets = ["10.2.1.0/24", "10.2.2.0/24"]
}
module "vpc_edge" {
  source         = "terraform-aws-modules/vpc/aws"
  azs            = ["us-east-1d", "us-east-1e"]
  public_subnets = ["10.3.1.0/24"]
}
module "eks" {
  source     = "terraform-aws-modules/eks/aws"
  version    = "~> 20.0"
  name       = "ml"
  subnet_ids = module.vpc.private_subnets
  eks_managed_node_groups = {
    gpu    = { instance_types = ["g6.xlarge"] }
    pinned = { instance_types = ["g6.xlarge"], subnet_ids = [module.vpc.private_subnets[1]] }
    intra  = { instance_types = ["g6.xlarge"], subnet_ids = module.vpc.intra_subnets }
    ids    = { instance_types = ["g6.xlarge"], subnet_ids = module.vpc_ids.private_subnets }
    lookup = { instance_types = ["g6.xlarge"], subnet_ids = module.vpc_looked_up.private_subnets }
    public = { instance_types = ["g6.xlarge"], subnet_ids = module.vpc.public_subnets }
    edge   = { instance_types = ["g6.xlarge"], subnet_ids = module.vpc_edge.public_subnets }
  }
}
resource "aws_eks_node_group" "own" {
  cluster_name    = "ml"
  node_group_name = "own"
  node_role_arn   = "arn:aws:iam::1:role/n"
  subnet_ids      = slice(module.vpc.private_subnets, 2, 4)
  instance_types  = ["g6.xlarge"]
  scaling_config {
    desired_size = 1
    min_size     = 1
    max_size     = 1
  }
}
`
	res := ParseSource("main.tf", []byte(src), Options{})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %v, warnings %v", res.Errors, res.Warnings)
	}
	zones := map[string]string{}
	for _, r := range res.Resources {
		if r.NodeLabels != nil {
			zones[r.Address] = strings.Join(r.NodeLabels.Zones, ",")
		}
	}
	group := func(name string) string {
		return fmt.Sprintf("module.eks.module.eks_managed_node_group[%q].aws_eks_node_group.this[0]", name)
	}
	want := map[string]string{
		group("gpu"):             "us-east-1a,us-east-1b,us-east-1c", // the fourth subnet is in us-east-1a again
		group("pinned"):          "us-east-1b",
		group("intra"):           "us-east-1a,us-east-1b",
		group("ids"):             "",
		group("lookup"):          "",
		group("public"):          "", // one NAT gateway per zone needs a public subnet in each: none is made
		group("edge"):            "us-east-1d",
		"aws_eks_node_group.own": "us-east-1a,us-east-1c",
	}
	if !maps.Equal(zones, want) {
		t.Errorf("zones %q\nwant %q", zones, want)
	}
}
