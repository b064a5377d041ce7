# gpuguard's stand-in for terraform-aws-modules/eks/aws: its managed and self-managed node
# groups, at the addresses the module gives them, with its defaults (node_groups.tf, v20; v21
# keeps these inputs for node groups, and changes ami_type's default, which the node group
# stand-ins follow through gpuguard_module_major). The cluster is declared at the module's address, with
# nothing but its place (the provider's region), so that Kubernetes objects applied to it find
# their region; its price, IAM, networking and add-ons are not modelled.

variable "create" {
  type    = bool
  default = true
}

variable "tags" {
  type     = any
  default  = {}
  nullable = false
}

# The subnets the node groups run in, unless a group names its own (the zones their nodes are
# in, when each is an aws_subnet of the configuration).
variable "subnet_ids" {
  type    = list(string)
  default = []
}

variable "eks_managed_node_groups" {
  type     = any
  default  = {}
  nullable = false
}

variable "eks_managed_node_group_defaults" {
  type     = any
  default  = {}
  nullable = false
}

variable "self_managed_node_groups" {
  type     = any
  default  = {}
  nullable = false
}

variable "self_managed_node_group_defaults" {
  type     = any
  default  = {}
  nullable = false
}

# The major version of the module the call gets, set by gpuguard and passed on to the node
# groups, whose defaults follow it.
# The cluster's Kubernetes version (cluster_version before v21), which a self-managed node
# group's AMI is looked up for.
variable "kubernetes_version" {
  type    = string
  default = null
}

variable "cluster_version" {
  type    = string
  default = null
}

variable "gpuguard_module_major" {
  type    = number
  default = null
}

variable "cluster_name" {
  type    = string
  default = null
}

variable "name" {
  type    = string
  default = null
}

locals {
  # A call that no version constraint bounds gets the newest release, unless it is written for
  # v20 or earlier: v21 renamed cluster_name and cluster_version to name and kubernetes_version
  # (docs/upgrade/UPGRADE-21.0.md) and rejects the old names, so a call that sets them cannot
  # be running v21.
  module_major = var.gpuguard_module_major != null ? var.gpuguard_module_major : (
    var.cluster_name != null || var.cluster_version != null ? 20 : null
  )
}

resource "aws_eks_cluster" "this" {
  count = var.create ? 1 : 0
}

locals {
  emng = var.eks_managed_node_group_defaults
  smng = var.self_managed_node_group_defaults
}

module "eks_managed_node_group" {
  source   = "../aws-eks-managed-node-group"
  for_each = { for k, v in var.eks_managed_node_groups : k => v if var.create }

  create          = try(each.value.create, true)
  name            = try(each.value.name, each.key)
  use_name_prefix = try(each.value.use_name_prefix, local.emng.use_name_prefix, true)
  min_size        = try(each.value.min_size, local.emng.min_size, 1)
  max_size        = try(each.value.max_size, local.emng.max_size, 3)
  desired_size    = try(each.value.desired_size, local.emng.desired_size, 1)
  instance_types  = try(each.value.instance_types, local.emng.instance_types, null)
  capacity_type   = try(each.value.capacity_type, local.emng.capacity_type, null)
  ami_type        = try(each.value.ami_type, local.emng.ami_type, null)
  ami_id          = try(each.value.ami_id, local.emng.ami_id, "")
  # Not try(): it makes a list of subnets known only at apply unknown in whole, and their
  # zones could no longer be read one by one.
  subnet_ids = contains(keys(each.value), "subnet_ids") ? each.value.subnet_ids : (contains(keys(local.emng), "subnet_ids") ? local.emng.subnet_ids : var.subnet_ids)

  bootstrap_extra_args       = try(each.value.bootstrap_extra_args, local.emng.bootstrap_extra_args, "")
  create_launch_template     = try(each.value.create_launch_template, local.emng.create_launch_template, true)
  use_custom_launch_template = try(each.value.use_custom_launch_template, local.emng.use_custom_launch_template, true)

  gpuguard_module_major = local.module_major
  labels          = try(each.value.labels, local.emng.labels, null)
  taints          = try(each.value.taints, local.emng.taints, {})
  tags            = merge(var.tags, try(each.value.tags, local.emng.tags, {}))
  create_schedule = try(each.value.create_schedule, local.emng.create_schedule, true)
  schedules       = try(each.value.schedules, local.emng.schedules, {})
}

module "self_managed_node_group" {
  source   = "../aws-self-managed-node-group"
  for_each = { for k, v in var.self_managed_node_groups : k => v if var.create }

  create                     = try(each.value.create, true)
  create_autoscaling_group   = try(each.value.create_autoscaling_group, local.smng.create_autoscaling_group, true)
  name                       = try(each.value.name, each.key)
  min_size                   = try(each.value.min_size, local.smng.min_size, 0)
  max_size                   = try(each.value.max_size, local.smng.max_size, 3)
  desired_size               = try(each.value.desired_size, local.smng.desired_size, 1)
  instance_type              = try(each.value.instance_type, local.smng.instance_type, "m6i.large")
  instance_requirements      = try(each.value.instance_requirements, local.smng.instance_requirements, {})
  instance_market_options    = try(each.value.instance_market_options, local.smng.instance_market_options, {})
  use_mixed_instances_policy = try(each.value.use_mixed_instances_policy, local.smng.use_mixed_instances_policy, false)
  mixed_instances_policy     = try(each.value.mixed_instances_policy, local.smng.mixed_instances_policy, null)
  tags                       = merge(var.tags, try(each.value.tags, local.smng.tags, {}))
  ami_id                     = try(each.value.ami_id, local.smng.ami_id, "")
  ami_type                   = try(each.value.ami_type, local.smng.ami_type, null)
  kubernetes_version         = try(each.value.kubernetes_version, each.value.cluster_version, var.kubernetes_version != null ? var.kubernetes_version : var.cluster_version)
  cluster_name               = try(coalesce(var.name, var.cluster_name), "")
  autoscaling_group_tags     = try(each.value.autoscaling_group_tags, local.smng.autoscaling_group_tags, {})
  create_schedule            = try(each.value.create_schedule, local.smng.create_schedule, true)
  schedules                  = try(each.value.schedules, local.smng.schedules, {})
  bootstrap_extra_args       = try(each.value.bootstrap_extra_args, local.smng.bootstrap_extra_args, "")
  pre_bootstrap_user_data    = try(each.value.pre_bootstrap_user_data, local.smng.pre_bootstrap_user_data, "")
  post_bootstrap_user_data   = try(each.value.post_bootstrap_user_data, local.smng.post_bootstrap_user_data, "")
  cloudinit_pre_nodeadm      = try(each.value.cloudinit_pre_nodeadm, local.smng.cloudinit_pre_nodeadm, [])
  cloudinit_post_nodeadm     = try(each.value.cloudinit_post_nodeadm, local.smng.cloudinit_post_nodeadm, [])
  user_data_template_path    = try(each.value.user_data_template_path, local.smng.user_data_template_path, "")

  gpuguard_module_major = local.module_major
}

# The node groups' outputs (the module's outputs.tf), which aws_autoscaling_group_tags read to
# tag their Auto Scaling groups; the names are known only at apply.
output "eks_managed_node_groups" {
  value = module.eks_managed_node_group
}

output "eks_managed_node_groups_autoscaling_group_names" {
  value = compact(flatten([for group in module.eks_managed_node_group : group.node_group_autoscaling_group_names]))
}

output "self_managed_node_groups" {
  value = module.self_managed_node_group
}

output "self_managed_node_groups_autoscaling_group_names" {
  value = compact([for group in module.self_managed_node_group : group.autoscaling_group_name])
}
