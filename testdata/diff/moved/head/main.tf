provider "aws" {
  region = "us-east-1"
  default_tags {
    tags = { team = "ml", project = "assistant", env = "prod" }
  }
}

resource "aws_eks_node_group" "train" {
  count           = 1
  cluster_name    = "ml"
  node_group_name = "train"
  node_role_arn   = "arn:aws:iam::123456789012:role/n"
  subnet_ids      = ["s"]
  instance_types  = ["g6e.12xlarge"]
  scaling_config {
    desired_size = 3
    max_size     = 4
    min_size     = 0
  }
}

moved {
  from = aws_instance.notebook
  to   = aws_instance.research_notebook
}

resource "aws_instance" "research_notebook" {
  instance_type = "g6.xlarge"
}

moved {
  from = module.inference
  to   = module.serving
}

module "serving" {
  source        = "./pool"
  instance_type = "g5.2xlarge"
}
