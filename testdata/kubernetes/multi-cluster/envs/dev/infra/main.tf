# The dev cluster's GPU node group. The dev workloads in ../k8s select it by its workload label;
# the other environment's cluster (../../prod) labels its group the same way.
provider "aws" {
  region = "us-east-1"
}

resource "aws_eks_node_group" "train" {
  cluster_name    = "dev"
  node_group_name = "train"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-nodes"
  subnet_ids      = ["subnet-1", "subnet-2"]
  instance_types  = ["g5.xlarge"]
  capacity_type   = "SPOT"
  labels          = { workload = "train" }
  tags            = { team = "ml", project = "train", env = "dev" }
  scaling_config {
    min_size     = 0
    desired_size = 1
    max_size     = 4
  }
}
