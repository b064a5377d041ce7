# EC2 attribute-based instance type selection (instance_requirements): the group or fleet names
# no type, EC2 launches types that meet the attributes. gpuguard prices the cheapest catalog type
# that meets them (what the lowest-price allocation launches), as an estimate; requirements that
# ask for no accelerators are CPU instances and not GPU resources.

provider "aws" {
  region = "us-east-1"
}

resource "aws_launch_template" "gpu_attrs" {
  name_prefix = "gpu-attrs"
  image_id    = "ami-12345678"
}

# One NVIDIA A10G or L4, 8 to 16 vCPUs, at least 32 GiB.
resource "aws_autoscaling_group" "inference" {
  name             = "inference"
  desired_capacity = 3
  max_size         = 10
  min_size         = 1

  mixed_instances_policy {
    launch_template {
      launch_template_specification {
        launch_template_id = aws_launch_template.gpu_attrs.id
      }
      override {
        instance_requirements {
          vcpu_count {
            min = 8
            max = 16
          }
          memory_mib {
            min = 32768
          }
          accelerator_count {
            min = 1
            max = 1
          }
          accelerator_manufacturers = ["nvidia"]
          accelerator_names         = ["a10g", "l4"]
        }
      }
    }
  }
  tag {
    key                 = "team"
    value               = "ml"
    propagate_at_launch = true
  }
}

# CPU workers chosen by attributes: not a GPU resource.
resource "aws_autoscaling_group" "cpu" {
  name             = "cpu"
  desired_capacity = 10
  max_size         = 20
  min_size         = 1

  mixed_instances_policy {
    launch_template {
      launch_template_specification {
        launch_template_id = aws_launch_template.gpu_attrs.id
      }
      override {
        instance_requirements {
          vcpu_count {
            min = 4
          }
          memory_mib {
            min = 8192
          }
        }
      }
    }
  }
}

# A spot fleet of GPUs with at least 40,000 MiB of accelerator memory in all, not g6e.
resource "aws_ec2_fleet" "training" {
  type = "maintain"
  launch_template_config {
    launch_template_specification {
      launch_template_id = aws_launch_template.gpu_attrs.id
      version            = "$Latest"
    }
    override {
      instance_requirements {
        vcpu_count {
          min = 4
        }
        memory_mib {
          min = 16384
        }
        accelerator_types = ["gpu"]
        accelerator_total_memory_mib {
          min = 40000
        }
        excluded_instance_types = ["g6e.*"]
      }
    }
  }
  target_capacity_specification {
    default_target_capacity_type = "spot"
    total_target_capacity        = 2
  }
}
