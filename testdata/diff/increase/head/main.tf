provider "aws" {
  region = "us-east-1"
  default_tags {
    tags = { team = "ml", project = "assistant", env = "prod" }
  }
}

# Bigger GPUs for training.
resource "aws_eks_node_group" "train" {
  cluster_name    = "ml"
  node_group_name = "train"
  node_role_arn   = "arn:aws:iam::123456789012:role/n"
  subnet_ids      = ["s"]
  instance_types  = ["p5.48xlarge"]
  scaling_config {
    desired_size = 2
    max_size     = 4
    min_size     = 0
  }
}

resource "aws_instance" "serve" {
  count         = 3
  instance_type = "g5.2xlarge"
}

resource "aws_instance" "notebook" {
  instance_type = "g6.xlarge"
}

resource "aws_instance" "experiment" {
  instance_type = "p6e-gb200.36xlarge"
}
