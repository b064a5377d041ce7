# GPU nodes for self-managed clusters on EC2: a k3s agent pool and an RKE2 agent pool. Their
# nodes register with the labels and taints their user data gives them, which the pods in
# ../k8s select.
provider "aws" {
  region = "us-east-1"
}

variable "k3s_server" {
  type    = string
  default = "https://k3s.internal.example.com:6443"
}

resource "aws_launch_template" "k3s_l40s" {
  name_prefix   = "k3s-l40s-"
  image_id      = "ami-0abcdef1234567890"
  instance_type = "g6e.xlarge"
  user_data = base64encode(templatefile("${path.module}/k3s-agent.sh.tftpl", {
    server = var.k3s_server
    pool   = "l40s"
  }))
}

resource "aws_autoscaling_group" "k3s_l40s" {
  name             = "k3s-l40s"
  desired_capacity = 2
  min_size         = 1
  max_size         = 6
  launch_template {
    id      = aws_launch_template.k3s_l40s.id
    version = "$Latest"
  }
  tag {
    key                 = "team"
    value               = "inference"
    propagate_at_launch = true
  }
}

resource "aws_launch_template" "rke2_batch" {
  name_prefix   = "rke2-batch-"
  image_id      = "ami-0abcdef1234567890"
  instance_type = "g5.12xlarge"
  user_data     = base64encode(file("${path.module}/rke2-agent.yaml"))
}

resource "aws_autoscaling_group" "rke2_batch" {
  name             = "rke2-batch"
  desired_capacity = 1
  min_size         = 0
  max_size         = 4
  launch_template {
    id      = aws_launch_template.rke2_batch.id
    version = "$Latest"
  }
}
