provider "aws" {
  region = "us-east-1"
  default_tags {
    tags = { team = "ml", project = "assistant", env = "prod" }
  }
}

resource "aws_eks_node_group" "train" {
  cluster_name    = "ml"
  node_group_name = "train"
  node_role_arn   = "arn:aws:iam::123456789012:role/n"
  subnet_ids      = ["s"]
  instance_types  = ["p4d.24xlarge"]
  scaling_config {
    desired_size = 2
    max_size     = 4
    min_size     = 0
  }
}

resource "aws_instance" "serve" {
  count         = 2
  instance_type = "g5.2xlarge"
}

resource "aws_instance" "retired" {
  instance_type = "g4dn.xlarge"
}

resource "aws_instance" "notebook" {
  instance_type = "g6.xlarge"
}
