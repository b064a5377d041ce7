# GPU node groups on EKS and GKE that workloads in ../k8s select by the labels the clouds put on
# their nodes, not by a group's name (gpuguard check capacity-labels):
#
# - EKS adds eks.amazonaws.com/capacityType (ON_DEMAND, SPOT) to every managed node group's
#   nodes: od runs on-demand g5.2xlarge, spot_l4 and spot_l40s run spot g6.2xlarge and
#   g6e.2xlarge.
# - GKE adds cloud.google.com/gke-spot=true to a Spot pool's nodes, and
#   cloud.google.com/gke-accelerator to every GPU pool's: l4_spot is Spot G2 (nvidia-l4, built
#   into the machine type), a100 is on-demand A2 (nvidia-tesla-a100).
# - NVIDIA's GPU feature discovery adds nvidia.com/gpu.product (NVIDIA-L40S) to every GPU node
#   where it runs: a workload that selects it runs on the groups of that GPU.
provider "aws" {
  region = "us-west-2"
}

provider "google" {
  project = "acme-ml"
  region  = "us-central1"
}

locals {
  tags = { team = "ml", project = "platform", env = "prod" }
}

resource "aws_eks_node_group" "od" {
  cluster_name    = "ml"
  node_group_name = "od"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-node"
  subnet_ids      = ["subnet-1"]
  instance_types  = ["g5.2xlarge"]
  scaling_config {
    desired_size = 2
    min_size     = 2
    max_size     = 4
  }
  tags = local.tags
}

resource "aws_eks_node_group" "spot_l4" {
  cluster_name    = "ml"
  node_group_name = "spot-l4"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-node"
  subnet_ids      = ["subnet-1"]
  instance_types  = ["g6.2xlarge"]
  capacity_type   = "SPOT"
  scaling_config {
    desired_size = 2
    min_size     = 0
    max_size     = 6
  }
  tags = local.tags
}

resource "aws_eks_node_group" "spot_l40s" {
  cluster_name    = "ml"
  node_group_name = "spot-l40s"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-node"
  subnet_ids      = ["subnet-1"]
  instance_types  = ["g6e.2xlarge"]
  capacity_type   = "SPOT"
  scaling_config {
    desired_size = 1
    min_size     = 0
    max_size     = 2
  }
  tags = local.tags
}

resource "google_container_node_pool" "l4_spot" {
  name       = "l4-spot"
  cluster    = "projects/acme-ml/locations/us-central1-a/clusters/ml"
  location   = "us-central1-a"
  node_count = 2
  node_config {
    machine_type    = "g2-standard-8"
    spot            = true
    resource_labels = local.tags
  }
}

resource "google_container_node_pool" "a100" {
  name       = "a100"
  cluster    = "projects/acme-ml/locations/us-central1-a/clusters/ml"
  location   = "us-central1-a"
  node_count = 1
  node_config {
    machine_type    = "a2-highgpu-1g"
    resource_labels = local.tags
  }
}
