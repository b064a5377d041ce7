# gpuguard's stand-in for terraform-aws-modules/eks/aws//modules/self-managed-node-group: the
# launch template's instance type (or instance_requirements, attribute-based selection) and
# market options, and the Auto Scaling group with its sizes and mixed instances policy (defaults
# from the module: min 0, max 3, desired 1, m6i.large). IAM, security groups and schedules are
# not modelled.

variable "create" {
  type    = bool
  default = true
}

variable "create_autoscaling_group" {
  type    = bool
  default = true
}

variable "name" {
  type    = string
  default = ""
}

variable "min_size" {
  type    = number
  default = 0
}

variable "max_size" {
  type    = number
  default = 3
}

variable "desired_size" {
  type    = number
  default = 1
}

variable "instance_type" {
  type    = string
  default = "m6i.large"
}

variable "instance_requirements" {
  type    = any
  default = {}
}

variable "instance_market_options" {
  type    = any
  default = {}
}

variable "use_mixed_instances_policy" {
  type    = bool
  default = false
}

variable "mixed_instances_policy" {
  type    = any
  default = null
}

variable "tags" {
  type    = map(string)
  default = {}
}

resource "aws_launch_template" "this" {
  count = var.create ? 1 : 0

  instance_type = length(var.instance_requirements) > 0 ? null : var.instance_type

  dynamic "instance_requirements" {
    for_each = length(var.instance_requirements) > 0 ? [var.instance_requirements] : []
    content {
      accelerator_manufacturers = try(instance_requirements.value.accelerator_manufacturers, null)
      accelerator_names         = try(instance_requirements.value.accelerator_names, null)
      accelerator_types         = try(instance_requirements.value.accelerator_types, null)
      allowed_instance_types    = try(instance_requirements.value.allowed_instance_types, null)
      excluded_instance_types   = try(instance_requirements.value.excluded_instance_types, null)

      dynamic "accelerator_count" {
        for_each = try([instance_requirements.value.accelerator_count], [])
        content {
          min = try(accelerator_count.value.min, null)
          max = try(accelerator_count.value.max, null)
        }
      }
      dynamic "accelerator_total_memory_mib" {
        for_each = try([instance_requirements.value.accelerator_total_memory_mib], [])
        content {
          min = try(accelerator_total_memory_mib.value.min, null)
          max = try(accelerator_total_memory_mib.value.max, null)
        }
      }
      dynamic "memory_mib" {
        for_each = try([instance_requirements.value.memory_mib], [])
        content {
          min = try(memory_mib.value.min, null)
          max = try(memory_mib.value.max, null)
        }
      }
      dynamic "vcpu_count" {
        for_each = try([instance_requirements.value.vcpu_count], [])
        content {
          min = try(vcpu_count.value.min, null)
          max = try(vcpu_count.value.max, null)
        }
      }
    }
  }

  dynamic "instance_market_options" {
    for_each = length(var.instance_market_options) > 0 ? [var.instance_market_options] : []
    content {
      market_type = try(instance_market_options.value.market_type, null)
    }
  }

  tags = var.tags
}

resource "aws_autoscaling_group" "this" {
  count = var.create && var.create_autoscaling_group ? 1 : 0

  min_size         = var.min_size
  max_size         = var.max_size
  desired_capacity = var.desired_size

  dynamic "launch_template" {
    for_each = var.use_mixed_instances_policy ? [] : [1]
    content {
      id = aws_launch_template.this[0].id
    }
  }

  dynamic "mixed_instances_policy" {
    for_each = var.use_mixed_instances_policy ? [var.mixed_instances_policy] : []
    content {
      dynamic "instances_distribution" {
        for_each = try([mixed_instances_policy.value.instances_distribution], [])
        content {
          on_demand_base_capacity                  = try(instances_distribution.value.on_demand_base_capacity, null)
          on_demand_percentage_above_base_capacity = try(instances_distribution.value.on_demand_percentage_above_base_capacity, null)
          spot_allocation_strategy                 = try(instances_distribution.value.spot_allocation_strategy, null)
        }
      }

      launch_template {
        launch_template_specification {
          launch_template_id = aws_launch_template.this[0].id
        }

        dynamic "override" {
          for_each = try(mixed_instances_policy.value.override, [])
          content {
            instance_type     = try(override.value.instance_type, null)
            weighted_capacity = try(override.value.weighted_capacity, null)
          }
        }
      }
    }
  }

  dynamic "tag" {
    for_each = merge(var.tags, { Name = var.name })
    content {
      key                 = tag.key
      value               = tag.value
      propagate_at_launch = true
    }
  }
}
