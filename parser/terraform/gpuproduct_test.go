package terraform

import (
	"testing"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// A pod that selects nvidia.com/gpu.product, gpu.count or gpu.memory (GPU feature discovery's
// labels) runs on the node groups whose GPUs they describe, as the embedded catalog knows their
// instance types' GPUs (or the GPUs attached to GKE's N1 pools). A product no group runs leaves the pod priced from
// its own labels, with a note; a group whose type is known only at apply may run it.
func TestPodSelectsANodeGroupByGPUProduct(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	const groups = `provider "aws" { region = "us-east-1" }
variable "type" { type = string }
resource "aws_eks_node_group" "od_l4" {
  cluster_name    = "ml"
  node_group_name = "od-l4"
  instance_types  = ["g6.xlarge"]
}
resource "aws_eks_node_group" "spot_l4" {
  cluster_name    = "ml"
  node_group_name = "spot-l4"
  instance_types  = ["g6.2xlarge"]
  capacity_type   = "SPOT"
}
resource "aws_eks_node_group" "spot_a100" {
  cluster_name    = "ml"
  node_group_name = "spot-a100"
  instance_types  = ["p4de.24xlarge"]
  capacity_type   = "SPOT"
}
resource "google_container_node_pool" "t4" {
  name     = "t4"
  cluster  = "ml"
  location = "us-central1-a"
  node_config {
    machine_type = "n1-standard-8"
    guest_accelerator {
      type  = "nvidia-tesla-t4"
      count = 2
    }
  }
}
`
	// unknownType is a group whose instance type is known only at apply.
	const unknownType = `resource "aws_eks_node_group" "any" {
  cluster_name    = "ml"
  node_group_name = "any"
  instance_types  = [var.type]
}
`
	const spot = ` "eks.amazonaws.com/capacityType" = "SPOT", `
	product := func(p string) string { return ` "nvidia.com/gpu.product" = "` + p + `" ` }
	cases := []struct {
		name, extra, selector string
		want                  string // type/purchase/region/gpus from source, or "" for a pod left unresolved
		note                  string // why it is unresolved, or a note on a pod priced off the groups
	}{
		{"A100 80GB", "", product("NVIDIA-A100-SXM4-80GB"),
			"p4de.24xlarge/spot/us-east-1/ from aws_eks_node_group.spot_a100 (the pod selects nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB)", ""},
		{"T4 attached to a GKE pool", "", product("Tesla-T4"),
			"n1-standard-8/on_demand/us-central1/nvidia-tesla-t4 from google_container_node_pool.t4 (the pod selects nvidia.com/gpu.product=Tesla-T4)", ""},
		{"spot L4 among groups of two GPUs", "", spot + product("NVIDIA-L4"),
			"g6.2xlarge/spot/us-east-1/ from aws_eks_node_group.spot_l4 (the pod selects eks.amazonaws.com/capacityType=SPOT, nvidia.com/gpu.product=NVIDIA-L4)", ""},
		{"two T4s a node", "", ` "nvidia.com/gpu.count" = "2" `,
			"n1-standard-8/on_demand/us-central1/nvidia-tesla-t4 from google_container_node_pool.t4 (the pod selects nvidia.com/gpu.count=2)", ""},
		{"eight GPUs a node", "", ` "nvidia.com/gpu.count" = "8" `,
			"p4de.24xlarge/spot/us-east-1/ from aws_eks_node_group.spot_a100 (the pod selects nvidia.com/gpu.count=8)", ""},
		{"spot with an L4's memory", "", spot + ` "nvidia.com/gpu.memory" = "23034" `,
			"g6.2xlarge/spot/us-east-1/ from aws_eks_node_group.spot_l4 (the pod selects eks.amazonaws.com/capacityType=SPOT, nvidia.com/gpu.memory=23034)", ""},
		{"Ampere: the A100 group, not the L4s (Ada Lovelace) nor the T4s (Turing)", "", ` "nvidia.com/gpu.family" = "ampere" `,
			"p4de.24xlarge/spot/us-east-1/ from aws_eks_node_group.spot_a100 (the pod selects nvidia.com/gpu.family=ampere)", ""},
		{"Turing by compute capability 7.5", "", ` "nvidia.com/gpu.compute.major" = "7", "nvidia.com/gpu.compute.minor" = "5" `,
			"n1-standard-8/on_demand/us-central1/nvidia-tesla-t4 from google_container_node_pool.t4 (the pod selects nvidia.com/gpu.compute.major=7, nvidia.com/gpu.compute.minor=5)", ""},
		{"a T4's memory", "", ` "nvidia.com/gpu.memory" = "15360" `,
			"n1-standard-8/on_demand/us-central1/nvidia-tesla-t4 from google_container_node_pool.t4 (the pod selects nvidia.com/gpu.memory=15360)", ""},
		{"L4 on two kinds of group", "", product("NVIDIA-L4"),
			"/on_demand//NVIDIA-L4 from nodeSelector/affinity nvidia.com/gpu.product",
			"the pod selects nvidia.com/gpu.product=NVIDIA-L4, which node groups of different kinds carry (aws_eks_node_group.od_l4: g6.xlarge on_demand in us-east-1; aws_eks_node_group.spot_l4: g6.2xlarge spot in us-east-1)"},
		{"a GPU no group runs", "", product("NVIDIA-H100-80GB-HBM3"),
			"/on_demand//NVIDIA-H100-80GB-HBM3 from nodeSelector/affinity nvidia.com/gpu.product",
			"the pod selects nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3, which none of the node groups read with it carries"},
		{"a group of a type known at apply may run it", unknownType, product("NVIDIA-A100-SXM4-80GB"),
			"/on_demand//NVIDIA-A100-SXM4-80GB from nodeSelector/affinity nvidia.com/gpu.product",
			"the pod selects nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB, which node groups of different kinds carry (aws_eks_node_group.spot_a100: p4de.24xlarge spot in us-east-1; aws_eks_node_group.any: unknown type on_demand in us-east-1)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Kubernetes: kubernetes.Options{GPUs: estimator.GPUCatalog{Catalog: cat}}}
			res := ParseSource("main.tf", []byte(groups+tc.extra+podOf("p", tc.selector)), opts)
			podOnGroups(t, res, tc.want, tc.note)
		})
	}
}
