# gpuguard's stand-in for terraform-aws-modules/eks/aws//modules/eks-managed-node-group: the node
# group, with the submodule's defaults (variables.tf: min 0, max 3, desired 1, ON_DEMAND). The
# launch template it makes names no instance type (EKS sets it on the node group) and is not
# modelled, nor are IAM and security groups.

variable "create" {
  type    = bool
  default = true
}

variable "name" {
  type    = string
  default = ""
}

# With use_name_prefix (the default) the node group's name is generated from "<name>-", so its
# nodes' eks.amazonaws.com/nodegroup label is known only at apply, but for how it starts.
variable "use_name_prefix" {
  type    = bool
  default = true
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

variable "instance_types" {
  type    = list(string)
  default = null
}

variable "capacity_type" {
  type    = string
  default = "ON_DEMAND"
}

# ami_type's default changed in v21 (docs/upgrade/UPGRADE-21.0.md: "ami_type now defaults to
# AL2023_x86_64_STANDARD"); in v20 it was null, which leaves the AMI to EKS. The default follows
# the major version the call gets (gpuguard_module_major, null for the newest release).
variable "ami_type" {
  type    = string
  default = null
}

# A custom AMI: the module then leaves ami_type unset (main.tf: ami_type = var.ami_id != "" ?
# null : var.ami_type), and EKS takes the launch template's image.
variable "ami_id" {
  type    = string
  default = ""
}

# The major version of the module the call gets, set by gpuguard (parser/terraform/moduleversion.go).
variable "gpuguard_module_major" {
  type    = number
  default = null
}

# v20's name for kubernetes_version (renamed in v21).
variable "cluster_version" {
  type    = string
  default = null
}

locals {
  # A call that no version constraint bounds gets the newest release, unless it is written for
  # v20 or earlier: v21 renamed the submodule's cluster_version to kubernetes_version
  # (docs/upgrade/UPGRADE-21.0.md) and rejects the old name.
  module_major = var.gpuguard_module_major != null ? var.gpuguard_module_major : (var.cluster_version != null ? 20 : null)
}

locals {
  custom_ami = var.ami_id != null && var.ami_id != ""
  ami_type = local.custom_ami ? null : (var.ami_type != null ? var.ami_type : (
    coalesce(local.module_major, 21) >= 21 ? "AL2023_x86_64_STANDARD" : null # null: the newest release
  ))
}

variable "labels" {
  type    = map(string)
  default = null
}

# Bottlerocket's settings (TOML) the module writes into the user data of the launch template it
# makes (modules/_user_data: bottlerocket_user_data.tpl appends bootstrap_extra_args), which EKS
# merges with its own: the NVIDIA device plugin settings there are read
# (parser/terraform/bottlerocket.go). Only that much of the launch template is modelled.
variable "bootstrap_extra_args" {
  type    = string
  default = ""
}

variable "create_launch_template" {
  type    = bool
  default = true
}

variable "use_custom_launch_template" {
  type    = bool
  default = true
}

locals {
  bottlerocket_settings = var.create && var.create_launch_template && var.use_custom_launch_template && startswith(upper(coalesce(local.ami_type, "")), "BOTTLEROCKET") && var.bootstrap_extra_args != ""
}

resource "aws_launch_template" "this" {
  count     = local.bottlerocket_settings ? 1 : 0
  name      = "${var.name}-eks-node-group"
  user_data = base64encode(var.bootstrap_extra_args)
}

# Kubernetes taints, a map (or list) of { key, value, effect } with the EKS API's effects
# (NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE).
variable "taints" {
  type    = any
  default = {}
}

variable "subnet_ids" {
  type    = list(string)
  default = null
}

variable "tags" {
  type    = map(string)
  default = {}
}

resource "aws_eks_node_group" "this" {
  count = var.create ? 1 : 0

  node_group_name        = var.use_name_prefix ? null : var.name
  node_group_name_prefix = var.use_name_prefix ? "${var.name}-" : null

  instance_types = var.instance_types
  subnet_ids     = var.subnet_ids
  capacity_type  = var.capacity_type == null ? "ON_DEMAND" : var.capacity_type
  ami_type       = local.ami_type

  # Not an argument of the resource: tells gpuguard which value the module's default supplied
  # (parser/terraform/gpudriver.go), for a message that does not claim the user set it.
  gpuguard_chosen_by = var.ami_type == null && local.ami_type != null ? { ami_type = "the module's default since v21" } : {}
  labels                  = var.labels

  dynamic "taint" {
    for_each = var.taints == null ? {} : var.taints
    content {
      key    = taint.value.key
      value  = try(taint.value.value, null)
      effect = taint.value.effect
    }
  }

  dynamic "launch_template" {
    for_each = local.bottlerocket_settings ? [1] : []
    content {
      id      = aws_launch_template.this[0].id
      version = "$Latest"
    }
  }

  scaling_config {
    min_size     = var.min_size
    max_size     = var.max_size
    desired_size = var.desired_size
  }

  tags = merge(var.tags, { Name = var.name })
}

# The outputs an aws_autoscaling_group_tag reads to tag the Auto Scaling group EKS creates for
# the node group (the module's outputs.tf), known only at apply.
output "node_group_autoscaling_group_names" {
  value = try([aws_eks_node_group.this[0].resources[0].autoscaling_groups[0].name], [])
}

output "node_group_id" {
  value = try(aws_eks_node_group.this[0].id, "")
}

output "node_group_labels" {
  value = try(aws_eks_node_group.this[0].labels, {})
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
  autoscaling_group_name = aws_eks_node_group.this[0].resources[0].autoscaling_groups[0].name

  min_size         = try(each.value.min_size, null)
  max_size         = try(each.value.max_size, null)
  desired_capacity = try(each.value.desired_size, null)
  start_time       = try(each.value.start_time, null)
  end_time         = try(each.value.end_time, null)
  time_zone        = try(each.value.time_zone, null)
  recurrence       = try(each.value.recurrence, null)
}
