# A refactoring pull request: the head renames the notebook, turns the training group into a
# counted resource (Terraform moves it to [0] by itself) and renames the module of inference
# pools. Only the training group's size changes.
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
  instance_types  = ["g6e.12xlarge"]
  scaling_config {
    desired_size = 2
    max_size     = 4
    min_size     = 0
  }
}

resource "aws_instance" "notebook" {
  instance_type = "g6.xlarge"
}

module "inference" {
  source        = "./pool"
  instance_type = "g5.2xlarge"
}
