provider "aws" {
  region = "us-east-1"
  default_tags {
    tags = { team = "ml-platform", env = "prod" }
  }
}

variable "serving_replicas" {
  type    = number
  default = 3
}

locals {
  project = "assistant"
}

# Fine-tuning: two 8×H100 nodes, on demand.
resource "aws_eks_node_group" "train" {
  cluster_name    = "ml"
  node_group_name = "train"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-node"
  subnet_ids      = ["subnet-0a1b2c"]
  instance_types  = ["p5.48xlarge"]
  capacity_type   = "ON_DEMAND"
  scaling_config {
    desired_size = 2
    max_size     = 4
    min_size     = 0
  }
  tags = { project = local.project }
}

# Serving: L40S nodes behind an Auto Scaling group.
resource "aws_launch_template" "serve" {
  name          = "serve-l40s"
  instance_type = "g6e.2xlarge"
}

resource "aws_autoscaling_group" "serve" {
  desired_capacity = var.serving_replicas
  max_size         = 10
  min_size         = 1
  launch_template {
    id = aws_launch_template.serve.id
  }
  tag {
    key                 = "project"
    value               = local.project
    propagate_at_launch = true
  }
}

# Batch embedding jobs on spot.
resource "aws_instance" "embed" {
  count         = 2
  instance_type = "g5.2xlarge"
  instance_market_options {
    market_type = "spot"
  }
  tags = { project = "search", gpuguard-profile = "profiles/embeddings.yaml" }
}
