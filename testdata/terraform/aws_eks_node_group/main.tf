provider "aws" {
  region = "us-east-1"
}

resource "aws_eks_node_group" "train" {
  cluster_name    = "ml"
  node_group_name = "train"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-node"
  subnet_ids      = ["subnet-1"]
  instance_types  = ["p5.48xlarge"]
  ami_type        = "AL2023_x86_64_NVIDIA"
  capacity_type   = "ON_DEMAND"
  scaling_config {
    desired_size = 2
    max_size     = 4
    min_size     = 0
  }
  tags = { team = "research", project = "foundation", env = "prod" }
}

resource "aws_eks_node_group" "spot" {
  cluster_name    = "ml"
  node_group_name = "spot"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-node"
  subnet_ids      = ["subnet-1"]
  instance_types  = ["g6e.xlarge", "g6e.2xlarge"]
  # A Bottlerocket AMI without the NVIDIA variant: the nodes get no GPU driver (GPU012).
  ami_type        = "BOTTLEROCKET_x86_64"
  capacity_type   = "SPOT"
  scaling_config {
    desired_size = 4
    max_size     = 8
    min_size     = 0
  }
}

resource "aws_eks_node_group" "system" {
  cluster_name    = "ml"
  node_group_name = "system"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-node"
  subnet_ids      = ["subnet-1"]
  scaling_config {
    desired_size = 2
    max_size     = 2
    min_size     = 2
  }
}
