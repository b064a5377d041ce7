# gpuguard's stand-in for cloudposse/eks-node-group/aws: the managed node group at the address
# the module gives it (aws_eks_node_group.default, or aws_eks_node_group.cbd with
# create_before_destroy), named and tagged by Cloud Posse's label (module.this from the context,
# then "workers" added as an attribute), with the module's defaults from its variables.tf (v2-v3,
# read 2026-11-23): instance_types ["t3.medium"], ami_type "AL2_x86_64", capacity_type null
# (on demand); desired_size, min_size and max_size have none. A node group made before it is
# destroyed is named after the label with a random pet name appended, so its name is known only
# at apply but for how it starts. The module passes ami_type only when no AMI is given
# (ami_image_id, or the launch template of launch_template_id, takes its place). The launch
# template it generates names no instance type, and IAM, security groups and user data are not
# modelled.

variable "context" {
  type    = any
  default = {}
}

variable "enabled" {
  type    = bool
  default = null
}

variable "namespace" {
  type    = string
  default = null
}

variable "tenant" {
  type    = string
  default = null
}

variable "environment" {
  type    = string
  default = null
}

variable "stage" {
  type    = string
  default = null
}

variable "name" {
  type    = string
  default = null
}

variable "delimiter" {
  type    = string
  default = null
}

variable "attributes" {
  type    = list(string)
  default = []
}

variable "tags" {
  type    = map(string)
  default = {}
}

variable "label_order" {
  type    = list(string)
  default = null
}

variable "regex_replace_chars" {
  type    = string
  default = null
}

variable "label_value_case" {
  type    = string
  default = null
}

variable "cluster_name" {
  type    = string
  default = null
}

variable "create_before_destroy" {
  type    = bool
  default = false
}

variable "desired_size" {
  type = number
}

variable "min_size" {
  type = number
}

variable "max_size" {
  type = number
}

variable "instance_types" {
  type    = list(string)
  default = ["t3.medium"]
}

variable "capacity_type" {
  type    = string
  default = null
}

# The module's default is "AL2_x86_64"; it is applied in local.ng, so that gpuguard can tell
# the default from a value the caller set.
variable "ami_type" {
  type    = string
  default = null
}

variable "ami_image_id" {
  type    = list(string)
  default = []
}

variable "launch_template_id" {
  type    = list(string)
  default = []
}

variable "kubernetes_labels" {
  type    = map(string)
  default = {}
}

# A list of { key, value, effect } with the EKS API's effects (NO_SCHEDULE, NO_EXECUTE,
# PREFER_NO_SCHEDULE).
variable "kubernetes_taints" {
  type    = any
  default = []
}

module "this" {
  source              = "cloudposse/label/null"
  context             = var.context
  enabled             = var.enabled
  namespace           = var.namespace
  tenant              = var.tenant
  environment         = var.environment
  stage               = var.stage
  name                = var.name
  delimiter           = var.delimiter
  attributes          = var.attributes
  tags                = var.tags
  label_order         = var.label_order
  regex_replace_chars = var.regex_replace_chars
  label_value_case    = var.label_value_case
}

module "label" {
  source     = "cloudposse/label/null"
  attributes = ["workers"]
  context    = module.this.context
}

# Both node groups take the same settings (the module keeps them in sync through local.ng):
# only the name and which one exists differ.
locals {
  enabled = module.this.enabled
  ng = {
    cluster_name   = var.cluster_name
    instance_types = var.instance_types
    ami_type       = length(var.ami_image_id) > 0 || length(var.launch_template_id) > 0 ? null : coalesce(var.ami_type, "AL2_x86_64")
    defaulted      = length(var.ami_image_id) > 0 || length(var.launch_template_id) > 0 || var.ami_type != null ? {} : { ami_type = "the module's default" }
    capacity_type  = var.capacity_type
    labels         = var.kubernetes_labels == null ? {} : var.kubernetes_labels
    taints         = var.kubernetes_taints == null ? [] : var.kubernetes_taints
    tags           = module.label.tags
  }
}

resource "aws_eks_node_group" "default" {
  count = local.enabled && !var.create_before_destroy ? 1 : 0

  node_group_name = module.label.id
  cluster_name    = local.ng.cluster_name
  instance_types  = local.ng.instance_types
  ami_type        = local.ng.ami_type
  # Not an argument of the resource: which value the module's default supplied (gpudriver.go).
  gpuguard_chosen_by = local.ng.defaulted
  capacity_type           = local.ng.capacity_type
  labels                  = local.ng.labels
  tags                    = local.ng.tags

  scaling_config {
    desired_size = var.desired_size
    max_size     = var.max_size
    min_size     = var.min_size
  }

  dynamic "taint" {
    for_each = local.ng.taints
    content {
      key    = taint.value["key"]
      value  = try(taint.value["value"], null)
      effect = taint.value["effect"]
    }
  }
}

resource "aws_eks_node_group" "cbd" {
  count = local.enabled && var.create_before_destroy ? 1 : 0

  node_group_name_prefix  = "${module.label.id}${module.label.delimiter}"
  cluster_name            = local.ng.cluster_name
  instance_types          = local.ng.instance_types
  ami_type                = local.ng.ami_type
  gpuguard_chosen_by = local.ng.defaulted
  capacity_type           = local.ng.capacity_type
  labels                  = local.ng.labels
  tags                    = local.ng.tags

  scaling_config {
    desired_size = var.desired_size
    max_size     = var.max_size
    min_size     = var.min_size
  }

  dynamic "taint" {
    for_each = local.ng.taints
    content {
      key    = taint.value["key"]
      value  = try(taint.value["value"], null)
      effect = taint.value["effect"]
    }
  }
}
