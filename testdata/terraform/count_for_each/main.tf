provider "aws" {
  region = "us-east-1"
}

variable "enabled" {
  type    = bool
  default = true
}

variable "unknown_count" {
  type = number
}

locals {
  workers = 3
  pools = {
    small = { type = "g6.xlarge", size = 2 }
    large = { type = "g6e.12xlarge", size = 1 }
  }
  notebooks = ["alice", "bob"]
}

resource "aws_instance" "worker" {
  count         = local.workers
  instance_type = "g5.xlarge"
  tags          = { Name = "worker-${count.index}" }
}

resource "aws_eks_node_group" "pool" {
  for_each        = local.pools
  cluster_name    = "ml"
  node_group_name = each.key
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-node"
  subnet_ids      = ["subnet-1"]
  instance_types  = [each.value.type]
  scaling_config {
    desired_size = each.value.size
    max_size     = each.value.size * 2
    min_size     = 0
  }
}

resource "aws_sagemaker_notebook_instance" "nb" {
  for_each      = toset(local.notebooks)
  name          = "nb-${each.key}"
  role_arn      = "arn:aws:iam::123456789012:role/sagemaker"
  instance_type = "ml.g5.xlarge"
}

resource "aws_instance" "conditional" {
  count         = var.enabled ? 1 : 0
  instance_type = "g6.2xlarge"
}

resource "aws_instance" "disabled" {
  count         = !var.enabled ? 1 : 0
  instance_type = "p5.48xlarge"
}

resource "aws_instance" "unknown" {
  count         = var.unknown_count
  instance_type = "g5.xlarge"
}
