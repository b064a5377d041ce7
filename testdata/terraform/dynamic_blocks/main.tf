provider "google" {
  project = "ml"
  zone    = "us-central1-b"
}

variable "gpus" {
  default = [{ type = "nvidia-tesla-t4", count = 1 }, { type = "nvidia-tesla-t4", count = 1 }]
}

resource "google_compute_instance" "dyn" {
  name         = "dyn"
  machine_type = "n1-standard-16"
  dynamic "guest_accelerator" {
    for_each = var.gpus
    iterator = gpu
    content {
      type  = gpu.value.type
      count = gpu.value.count
    }
  }
  scheduling {
    on_host_maintenance = "TERMINATE"
  }
}

resource "aws_autoscaling_group" "overrides" {
  provider         = aws
  desired_capacity = 2
  max_size         = 2
  min_size         = 2
  mixed_instances_policy {
    launch_template {
      launch_template_specification {
        launch_template_name = "none-in-this-config"
      }
      dynamic "override" {
        for_each = ["g6.4xlarge", "g6.8xlarge"]
        content {
          instance_type = override.value
        }
      }
    }
  }
}

provider "aws" {
  region = "us-east-1"
}
