# gpuguard's stand-in for terraform-aws-modules/autoscaling/aws: the launch template the module
# creates (aws_launch_template.this[0]: its instance type or instance_requirements, market options
# and instance tags) or the one launch_template_id names, and the Auto Scaling group at the
# address the module gives it (aws_autoscaling_group.this[0], or .idc[0] with
# ignore_desired_capacity_changes) with its sizes, mixed instances policy (v9 puts the overrides
# under launch_template, v8 and earlier beside it: both are read) and tags. Defaults from the
# module's variables.tf (v7-v9): create and create_launch_template true, sizes unset, no mixed
# instances policy. IAM, scaling policies, schedules and warm pools are not modelled.

variable "create" {
  type    = bool
  default = true
}

variable "name" {
  type    = string
  default = ""
}

variable "instance_name" {
  type    = string
  default = ""
}

variable "ignore_desired_capacity_changes" {
  type    = bool
  default = false
}

variable "min_size" {
  type    = number
  default = null
}

variable "max_size" {
  type    = number
  default = null
}

variable "desired_capacity" {
  type    = number
  default = null
}

variable "create_launch_template" {
  type    = bool
  default = true
}

variable "launch_template_id" {
  type    = string
  default = null
}

variable "instance_type" {
  type    = string
  default = null
}

variable "instance_requirements" {
  type     = any
  default  = {}
  nullable = false
}

variable "instance_market_options" {
  type     = any
  default  = {}
  nullable = false
}

variable "tag_specifications" {
  type     = any
  default  = []
  nullable = false
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
  type     = map(string)
  default  = {}
  nullable = false
}

variable "autoscaling_group_tags" {
  type     = map(string)
  default  = {}
  nullable = false
}

locals {
  launch_template_id = var.create_launch_template ? aws_launch_template.this[0].id : var.launch_template_id
  asg_tags           = merge(var.tags, { "Name" = var.instance_name != "" ? var.instance_name : var.name }, var.autoscaling_group_tags)
  overrides          = try(var.mixed_instances_policy.launch_template.override, var.mixed_instances_policy.override, [])
}

resource "aws_launch_template" "this" {
  count = var.create_launch_template ? 1 : 0

  instance_type = var.instance_type

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

  dynamic "tag_specifications" {
    for_each = var.tag_specifications
    content {
      resource_type = tag_specifications.value.resource_type
      tags          = merge(var.tags, try(tag_specifications.value.tags, {}))
    }
  }

  tags = var.tags
}

resource "aws_autoscaling_group" "this" {
  count = var.create && !var.ignore_desired_capacity_changes ? 1 : 0

  min_size         = var.min_size
  max_size         = var.max_size
  desired_capacity = var.desired_capacity

  dynamic "launch_template" {
    for_each = var.use_mixed_instances_policy ? [] : [1]
    content {
      id = local.launch_template_id
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
          launch_template_id = local.launch_template_id
        }

        dynamic "override" {
          for_each = local.overrides
          content {
            instance_type     = try(override.value.instance_type, null)
            weighted_capacity = try(override.value.weighted_capacity, null)
          }
        }
      }
    }
  }

  dynamic "tag" {
    for_each = local.asg_tags
    content {
      key                 = tag.key
      value               = tag.value
      propagate_at_launch = true
    }
  }
}

resource "aws_autoscaling_group" "idc" {
  count = var.create && var.ignore_desired_capacity_changes ? 1 : 0

  min_size         = var.min_size
  max_size         = var.max_size
  desired_capacity = var.desired_capacity

  dynamic "launch_template" {
    for_each = var.use_mixed_instances_policy ? [] : [1]
    content {
      id = local.launch_template_id
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
          launch_template_id = local.launch_template_id
        }

        dynamic "override" {
          for_each = local.overrides
          content {
            instance_type     = try(override.value.instance_type, null)
            weighted_capacity = try(override.value.weighted_capacity, null)
          }
        }
      }
    }
  }

  dynamic "tag" {
    for_each = local.asg_tags
    content {
      key                 = tag.key
      value               = tag.value
      propagate_at_launch = true
    }
  }
}

# Scheduled actions (the module's var.schedules), which gpuguard replays to price the group for
# what it runs (parser/schedule).
variable "create_schedule" {
  type    = bool
  default = true
}

variable "schedules" {
  type    = any
  default = {}
}

resource "aws_autoscaling_schedule" "this" {
  for_each = { for k, v in var.schedules : k => v if var.create && var.create_schedule }

  scheduled_action_name  = each.key
  autoscaling_group_name = try(aws_autoscaling_group.this[0].name, aws_autoscaling_group.idc[0].name)

  min_size         = try(each.value.min_size, null)
  max_size         = try(each.value.max_size, null)
  desired_capacity = try(each.value.desired_capacity, null)
  start_time       = try(each.value.start_time, null)
  end_time         = try(each.value.end_time, null)
  time_zone        = try(each.value.time_zone, null)
  recurrence       = try(each.value.recurrence, null)
}
