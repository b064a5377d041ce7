# gpuguard's stand-in for Azure/avm-res-containerservice-managedcluster/azurerm before its move to
# the AzAPI provider (azure-avm-aks): a call that sets default_node_pool, node_pools or
# resource_group_name, inputs the AzAPI release renamed or removed, is read by this one.
#
# What it declares, at the module's addresses (read 2026-11-23: main.tf, main.nodepool.tf and
# modules/nodepool of the AzureRM releases):
#   - the cluster, azurerm_kubernetes_cluster.this, in var.location, with var.default_node_pool as
#     its default node pool (the pool's own tags, not the cluster's);
#   - each of var.node_pools at module.nodepools["key"], read by azure-avm-aks-nodepool.
# The earliest releases declared the node pools in the module itself
# (azurerm_kubernetes_cluster_node_pool.this["name"]) and the last AzureRM ones as azapi agent
# pools: the same machines at other addresses. Networking, identity, add-ons, monitoring and
# maintenance are not modelled.

variable "name" {
  type    = string
  default = null
}

variable "location" {
  type    = string
  default = null
}

variable "resource_group_name" {
  type    = string
  default = null
}

variable "tags" {
  type    = map(string)
  default = null
}

variable "default_node_pool" {
  type    = any
  default = null
}

variable "node_pools" {
  type     = any
  default  = {}
  nullable = false
}

variable "create_nodepools_before_destroy" {
  type     = bool
  default  = false
  nullable = false
}

resource "azurerm_kubernetes_cluster" "this" {
  name                = var.name
  location            = var.location
  resource_group_name = var.resource_group_name
  tags                = var.tags

  dynamic "default_node_pool" {
    for_each = var.default_node_pool != null ? [var.default_node_pool] : []
    content {
      name                         = try(default_node_pool.value.name, null)
      vm_size                      = try(default_node_pool.value.vm_size, null)
      auto_scaling_enabled         = try(default_node_pool.value.auto_scaling_enabled, null)
      node_count                   = try(default_node_pool.value.node_count, null)
      min_count                    = try(default_node_pool.value.min_count, null)
      max_count                    = try(default_node_pool.value.max_count, null)
      node_labels                  = try(default_node_pool.value.node_labels, null)
      only_critical_addons_enabled = try(default_node_pool.value.only_critical_addons_enabled, null)
      zones                        = try(default_node_pool.value.zones, null)
      tags                         = try(default_node_pool.value.tags, null)
    }
  }
}

module "nodepools" {
  source   = "../azure-avm-aks-nodepool"
  for_each = var.node_pools

  name                           = each.value.name
  cluster_resource_id            = azurerm_kubernetes_cluster.this.id
  create_nodepool_before_destroy = var.create_nodepools_before_destroy
  vm_size                        = try(each.value.vm_size, null)
  auto_scaling_enabled           = try(each.value.auto_scaling_enabled, null)
  node_count                     = try(each.value.node_count, null)
  min_count                      = try(each.value.min_count, null)
  max_count                      = try(each.value.max_count, null)
  mode                           = try(each.value.mode, null)
  node_labels                    = try(each.value.node_labels, null)
  node_taints                    = try(each.value.node_taints, null)
  priority                       = try(each.value.priority, null)
  eviction_policy                = try(each.value.eviction_policy, null)
  spot_max_price                 = try(each.value.spot_max_price, null)
  zones                          = try(each.value.zones, null)
  tags                           = try(each.value.tags, null)
}
