# The prod cluster's GPU node group. The prod workloads in ../k8s select it by its workload label;
# the other environment's cluster (../../dev) labels its group the same way.
provider "aws" {
  region = "us-east-1"
}

resource "aws_eks_node_group" "train" {
  cluster_name    = "prod"
  node_group_name = "train"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-nodes"
  subnet_ids      = ["subnet-1", "subnet-2"]
  instance_types  = ["p4d.24xlarge"]
  capacity_type   = "ON_DEMAND"
  labels          = { workload = "train" }
  tags            = { team = "ml", project = "train", env = "prod" }
  scaling_config {
    min_size     = 1
    desired_size = 1
    max_size     = 4
  }
}
