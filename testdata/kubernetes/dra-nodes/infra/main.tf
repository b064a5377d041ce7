# An EKS cluster with two GPU node groups, L4 and H100, whose pods ask for GPUs through DRA
# ResourceClaims (../k8s) and name no node: the claims' CEL selectors say which group runs them,
# as the scheduler places a pod only on a node whose devices its claims can take.
provider "aws" {
  region = "us-east-1"
}

resource "aws_eks_node_group" "l4" {
  cluster_name    = "ml"
  node_group_name = "l4"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-nodes"
  subnet_ids      = ["subnet-1", "subnet-2"]
  instance_types  = ["g6.xlarge"]
  capacity_type   = "SPOT"
  tags            = { team = "ml", project = "serve", env = "prod" }
  scaling_config {
    min_size     = 1
    desired_size = 2
    max_size     = 4
  }
}

resource "aws_eks_node_group" "h100" {
  cluster_name    = "ml"
  node_group_name = "h100"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-nodes"
  subnet_ids      = ["subnet-1", "subnet-2"]
  instance_types  = ["p5.48xlarge"]
  tags            = { team = "ml", project = "train", env = "prod" }
  scaling_config {
    min_size     = 0
    desired_size = 1
    max_size     = 2
  }
}
