provider "aws" {
  region = "us-east-1"
  default_tags {
    tags = { team = "ml", project = "assistant", env = "prod" }
  }
}

# LoRA fine-tuning checkpoints every 30 minutes: one node on spot is enough.
resource "aws_eks_node_group" "finetune" {
  cluster_name    = "ml"
  node_group_name = "finetune"
  node_role_arn   = "arn:aws:iam::123456789012:role/n"
  subnet_ids      = ["s"]
  instance_types  = ["p4d.24xlarge"]
  capacity_type   = "SPOT"
  scaling_config {
    desired_size = 1
    max_size     = 2
    min_size     = 0
  }
  tags = { gpuguard-profile = "profiles/finetune.yaml" }
}

resource "aws_instance" "chat" {
  count         = 2
  instance_type = "g6e.xlarge"
  tags          = { gpuguard-profile = "profiles/chat.yaml" }
}
