provider "aws" {
  region = "us-east-1"
  default_tags {
    tags = { team = "ml" }
  }
}

# Over the per-resource budget, and the 70B job does not fit on 16 A100 40GB.
resource "aws_eks_node_group" "big" {
  cluster_name    = "ml"
  node_group_name = "big"
  node_role_arn   = "arn:aws:iam::123456789012:role/n"
  subnet_ids      = ["s"]
  instance_types  = ["p5.48xlarge"]
  scaling_config {
    desired_size = 1
    max_size     = 1
    min_size     = 1
  }
  tags = { cost-center = "cc-1" }
}

resource "aws_instance" "train" {
  count         = 2
  instance_type = "p4d.24xlarge"
  tags          = { cost-center = "cc-1" }
}

# Latency-sensitive serving on spot: denied.
resource "aws_instance" "serve" {
  instance_type = "g6e.xlarge"
  instance_market_options {
    market_type = "spot"
  }
  tags = { cost-center = "cc-2" }
}

# gpuguard:ignore GPU007 reason="exploration box, no fixed workload" expires=2027-06-30
# gpuguard:ignore GPU005 expires=2026-01-01
resource "aws_instance" "sandbox" {
  instance_type = "g5.xlarge"
}

# Four T4s attached to an N1 VM for a model that needs one: GPU003 names the same VM with one
# T4 (an N1 VM has no GPUs of its own).
resource "google_compute_instance" "vision" {
  name         = "vision"
  machine_type = "n1-standard-8"
  zone         = "us-central1-a"
  guest_accelerator {
    type  = "nvidia-tesla-t4"
    count = 4
  }
  labels = { team = "vision", cost-center = "cc-3" }
  scheduling {
    on_host_maintenance = "TERMINATE"
  }
}
