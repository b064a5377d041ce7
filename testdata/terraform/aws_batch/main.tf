# AWS Batch compute environments: EC2 or spot instances sized in vCPUs.
provider "aws" { region = "us-east-1" }
resource "aws_batch_compute_environment" "gpu" {
  compute_environment_name = "gpu"
  type = "MANAGED"
  compute_resources {
    type          = "EC2"
    instance_type = ["g5.12xlarge", "g5.24xlarge"]
    min_vcpus     = 0
    desired_vcpus = 96
    max_vcpus     = 480
    subnets       = []
    security_group_ids = []
    instance_role = "x"
  }
}
resource "aws_batch_compute_environment" "idle" {
  compute_environment_name = "idle"
  type = "MANAGED"
  compute_resources {
    type          = "SPOT"
    instance_type = ["p4d.24xlarge"]
    min_vcpus     = 0
    max_vcpus     = 192
    subnets = []
    security_group_ids = []
    instance_role = "x"
  }
}
resource "aws_batch_compute_environment" "fam" {
  compute_environment_name = "fam"
  type = "MANAGED"
  compute_resources {
    type = "EC2"
    instance_type = ["g5"]
    max_vcpus = 64
    subnets = []
    security_group_ids = []
    instance_role = "x"
  }
}
resource "aws_batch_compute_environment" "cpu" {
  compute_environment_name = "cpu"
  type = "MANAGED"
  compute_resources {
    type = "FARGATE"
    max_vcpus = 64
    subnets = []
    security_group_ids = []
  }
}
