# gpuguard's stand-in for terraform-aws-modules/eks/aws//modules/self-managed-node-group: the
# launch template's instance type (or instance_requirements, attribute-based selection) and
# market options, and the Auto Scaling group with its sizes and mixed instances policy (defaults
# from the module: min 0, max 3, desired 1, m6i.large), and the image the launch template
# boots: ami_id, else the EKS-optimized AMI of ami_type, read from its SSM parameter; the user
# data the module writes for ami_type, and the group's tags (the cluster's, and
# autoscaling_group_tags), which make it a Kubernetes node group. IAM, security groups and
# schedules are not modelled.

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

variable "ami_id" {
  type    = string
  default = ""
}

# The module's default changed in v21 (docs/upgrade/UPGRADE-21.0.md: "ami_type now defaults to
# AL2023_x86_64_STANDARD"); v20 defaulted to AL2_x86_64, and earlier versions looked up the
# Amazon Linux 2 EKS AMI by name (amazon-eks-node-<version>-v*): none has the NVIDIA driver.
variable "ami_type" {
  type    = string
  default = null
}

# The Kubernetes version of the AMI; the module takes the cluster's when it is not given, which
# is known only at apply (cluster_version before v21).
variable "kubernetes_version" {
  type    = string
  default = null
}

variable "cluster_version" {
  type    = string
  default = null
}

# The major version of the module the call gets, set by gpuguard (parser/terraform/moduleversion.go).
variable "gpuguard_module_major" {
  type    = number
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
  ami_type = var.ami_type != null ? var.ami_type : (
    coalesce(local.module_major, 21) >= 21 ? "AL2023_x86_64_STANDARD" : "AL2_x86_64" # null: the newest release
  )
  # The SSM parameter of each AMI type's image, around the Kubernetes version
  # (https://docs.aws.amazon.com/eks/latest/userguide/retrieve-ami-id.html and
  # retrieve-ami-id-bottlerocket.html).
  ssm_parameter = {
    AL2_x86_64                 = ["/aws/service/eks/optimized-ami/", "/amazon-linux-2/recommended/image_id"]
    AL2_x86_64_GPU             = ["/aws/service/eks/optimized-ami/", "/amazon-linux-2-gpu/recommended/image_id"]
    AL2_ARM_64                 = ["/aws/service/eks/optimized-ami/", "/amazon-linux-2-arm64/recommended/image_id"]
    AL2023_x86_64_STANDARD     = ["/aws/service/eks/optimized-ami/", "/amazon-linux-2023/x86_64/standard/recommended/image_id"]
    AL2023_ARM_64_STANDARD     = ["/aws/service/eks/optimized-ami/", "/amazon-linux-2023/arm64/standard/recommended/image_id"]
    AL2023_x86_64_NEURON       = ["/aws/service/eks/optimized-ami/", "/amazon-linux-2023/x86_64/neuron/recommended/image_id"]
    AL2023_x86_64_NVIDIA       = ["/aws/service/eks/optimized-ami/", "/amazon-linux-2023/x86_64/nvidia/recommended/image_id"]
    AL2023_ARM_64_NVIDIA       = ["/aws/service/eks/optimized-ami/", "/amazon-linux-2023/arm64/nvidia/recommended/image_id"]
    BOTTLEROCKET_x86_64        = ["/aws/service/bottlerocket/aws-k8s-", "/x86_64/latest/image_id"]
    BOTTLEROCKET_ARM_64        = ["/aws/service/bottlerocket/aws-k8s-", "/arm64/latest/image_id"]
    BOTTLEROCKET_x86_64_NVIDIA = ["/aws/service/bottlerocket/aws-k8s-", "-nvidia/x86_64/latest/image_id"]
    BOTTLEROCKET_ARM_64_NVIDIA = ["/aws/service/bottlerocket/aws-k8s-", "-nvidia/arm64/latest/image_id"]
  }
  ami_parameter = try(local.ssm_parameter[local.ami_type], null)
}

data "aws_ssm_parameter" "ami" {
  count = var.create && !local.custom_ami && local.ami_parameter != null ? 1 : 0

  name = "${local.ami_parameter[0]}${var.kubernetes_version != null ? var.kubernetes_version : var.cluster_version}${local.ami_parameter[1]}"
}

variable "tags" {
  type    = map(string)
  default = {}
}

# Tags on the Auto Scaling group alone (not propagated to its instances): the cluster
# autoscaler's node-template tags, which name the nodes' labels and taints, are set here.
variable "autoscaling_group_tags" {
  type    = map(string)
  default = {}
}

variable "cluster_name" {
  type    = string
  default = ""
}

# The user data the module writes (modules/_user_data with enable_bootstrap_user_data = true,
# its templates by ami_type): the kubelet's labels and taints that gpuguard reads from it
# (parser/userdata) are in bootstrap_extra_args (AL2's bootstrap.sh arguments, Bottlerocket's
# TOML settings) or in cloudinit_pre_nodeadm (Amazon Linux 2023: NodeConfig parts). A custom
# user_data_template_path is not rendered: its labels are not known.
variable "bootstrap_extra_args" {
  type    = string
  default = ""
}

variable "pre_bootstrap_user_data" {
  type    = string
  default = ""
}

variable "post_bootstrap_user_data" {
  type    = string
  default = ""
}

variable "cloudinit_pre_nodeadm" {
  type    = any
  default = []
}

variable "cloudinit_post_nodeadm" {
  type    = any
  default = []
}

variable "user_data_template_path" {
  type    = string
  default = ""
}

locals {
  user_data_family = split("_", local.ami_type)[0]
  nodeadm_parts = concat(
    coalesce(var.cloudinit_pre_nodeadm, []),
    [{ content_type = "application/node.eks.aws", content = "---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: ${var.cluster_name}\n" }],
    coalesce(var.cloudinit_post_nodeadm, []),
  )
  user_data = var.user_data_template_path != "" ? null : (
    local.user_data_family == "AL2" ? "#!/bin/bash\nset -e\n${var.pre_bootstrap_user_data}\n/etc/eks/bootstrap.sh ${var.cluster_name} ${var.bootstrap_extra_args} --b64-cluster-ca $B64_CLUSTER_CA --apiserver-endpoint $API_SERVER_URL\n${var.post_bootstrap_user_data}\n" :
    local.user_data_family == "BOTTLEROCKET" ? "[settings.kubernetes]\n\"cluster-name\" = \"${var.cluster_name}\"\n\n${var.bootstrap_extra_args}\n" :
    local.user_data_family == "AL2023" ? join("", concat(
      ["MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"MIMEBOUNDARY\"\n\n"],
      [for p in local.nodeadm_parts : "--MIMEBOUNDARY\nContent-Type: ${try(p.content_type, "text/x-shellscript")}\n\n${p.content}\n\n"],
      ["--MIMEBOUNDARY--\n"],
    )) : null
  )
}

resource "aws_launch_template" "this" {
  count = var.create ? 1 : 0

  instance_type = length(var.instance_requirements) > 0 ? null : var.instance_type
  image_id      = local.custom_ami ? var.ami_id : data.aws_ssm_parameter.ami[0].value

  # Not an argument of the resource: tells gpuguard which of the module's settings chose the
  # image (parser/terraform/gpudriver.go).
  gpuguard_chosen_by = local.custom_ami ? {} : {
    image_id = var.ami_type != null ? "the AMI of ami_type = ${var.ami_type}" : "ami_type is not set, and the module's default is ${local.ami_type}"
  }

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

  user_data = local.user_data == null ? null : base64encode(local.user_data)

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
    for_each = merge({
      Name                                          = var.name
      "kubernetes.io/cluster/${var.cluster_name}" = "owned"
      "k8s.io/cluster/${var.cluster_name}"        = "owned"
    }, var.tags)
    content {
      key                 = tag.key
      value               = tag.value
      propagate_at_launch = true
    }
  }

  dynamic "tag" {
    for_each = var.autoscaling_group_tags
    content {
      key                 = tag.key
      value               = tag.value
      propagate_at_launch = false
    }
  }
}

# The outputs an aws_autoscaling_group_tag reads to tag the module's Auto Scaling group (the
# module's outputs.tf).
output "autoscaling_group_name" {
  value = try(aws_autoscaling_group.this[0].name, null)
}

output "autoscaling_group_id" {
  value = try(aws_autoscaling_group.this[0].id, null)
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
  autoscaling_group_name = aws_autoscaling_group.this[0].name

  min_size         = try(each.value.min_size, null)
  max_size         = try(each.value.max_size, null)
  desired_capacity = try(each.value.desired_size, null)
  start_time       = try(each.value.start_time, null)
  end_time         = try(each.value.end_time, null)
  time_zone        = try(each.value.time_zone, null)
  recurrence       = try(each.value.recurrence, null)
}
