# gpuguard's stand-in for Azure/avm-res-containerservice-managedcluster/azurerm, Azure Verified
# Modules' AKS module, as it is since it moved to the AzAPI provider (pull request #107,
# 2025-09, and its upgrade guide: default_node_pool became default_agent_pool, node_pools
# agent_pools, node_count count_of, auto_scaling_enabled enable_auto_scaling, priority
# scale_set_priority). A call that still sets the older inputs is read by azure-avm-aks-azurerm.
#
# What it declares, at the module's addresses (read 2026-11-23: variables.tf,
# variables.agent_pool.tf, main.agent_pool.tf, main.default_agent_pool.tf,
# locals.agent_pool_profiles.tf and modules/agentpool):
#   - the cluster, azapi_resource.this (Microsoft.ContainerService/managedClusters), with the
#     default agent pool among its agentPoolProfiles (mode System, the cluster's tags; name
#     systempool and count_of 3 unless set). Without a vm_size AKS picks a general-purpose size,
#     never a GPU one, so such a pool is left out. A default pool the module manages as a child
#     resource (default_agent_pool_managed_as_child) is still priced here, once;
#   - each of var.agent_pools at module.nodepools["key"], read by azure-avm-aks-agentpool.
# Networking, identity, add-ons, monitoring and maintenance are not modelled.

variable "name" {
  type    = string
  default = null
}

variable "location" {
  type    = string
  default = null
}

variable "parent_id" {
  type    = string
  default = null
}

variable "tags" {
  type    = map(string)
  default = null
}

variable "default_agent_pool" {
  type     = any
  default  = {}
  nullable = false
}

variable "agent_pools" {
  type     = any
  default  = {}
  nullable = false
}

variable "create_agentpools_before_destroy" {
  type     = bool
  default  = false
  nullable = false
}

locals {
  dp = var.default_agent_pool
}

# As the module does, the default pool's properties are the agent pool module's body, computed
# without creating the pool (output_data_only), then set in the cluster's agentPoolProfiles.
module "default_agent_pool_data" {
  source = "../azure-avm-aks-agentpool"

  name                      = coalesce(try(local.dp.name, null), "systempool")
  output_data_only          = true
  mode                      = "System"
  os_type                   = "Linux"
  vm_size                   = try(local.dp.vm_size, null)
  count_of                  = coalesce(try(local.dp.count_of, null), 3)
  enable_auto_scaling       = try(local.dp.enable_auto_scaling, null)
  min_count                 = try(local.dp.min_count, null)
  max_count                 = try(local.dp.max_count, null)
  node_labels               = try(local.dp.node_labels, null)
  node_taints               = try(local.dp.node_taints, null)
  scale_set_priority        = try(local.dp.scale_set_priority, null)
  scale_set_eviction_policy = try(local.dp.scale_set_eviction_policy, null)
  spot_max_price            = try(local.dp.spot_max_price, null)
  gpu_profile               = try(local.dp.gpu_profile, null)
  availability_zones        = try(local.dp.availability_zones, null)
  tags                      = var.tags
}

resource "azapi_resource" "this" {
  type      = "Microsoft.ContainerService/managedClusters@2025-10-01"
  name      = var.name
  parent_id = var.parent_id
  location  = var.location
  tags      = var.tags
  body = {
    properties = {
      agentPoolProfiles = [for p in [merge(module.default_agent_pool_data.body_properties, { name = module.default_agent_pool_data.name })] : p if p.vmSize != null]
    }
  }
}

module "nodepools" {
  source   = "../azure-avm-aks-agentpool"
  for_each = var.agent_pools

  name                      = each.value.name
  parent_id                 = azapi_resource.this.id
  create_before_destroy     = var.create_agentpools_before_destroy
  vm_size                   = try(each.value.vm_size, null)
  count_of                  = try(each.value.count_of, null)
  enable_auto_scaling       = try(each.value.enable_auto_scaling, null)
  min_count                 = try(each.value.min_count, null)
  max_count                 = try(each.value.max_count, null)
  mode                      = try(each.value.mode, null)
  node_labels               = try(each.value.node_labels, null)
  node_taints               = try(each.value.node_taints, null)
  scale_set_priority        = try(each.value.scale_set_priority, null)
  scale_set_eviction_policy = try(each.value.scale_set_eviction_policy, null)
  spot_max_price            = try(each.value.spot_max_price, null)
  gpu_profile               = try(each.value.gpu_profile, null)
  availability_zones        = try(each.value.availability_zones, null)
  output_data_only          = try(each.value.output_data_only, null)
  tags                      = try(each.value.tags, null)
}
