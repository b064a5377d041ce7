# gpuguard's stand-in for Azure/aks/azurerm: the cluster's default node pool and the node pools of
# var.node_pools, at the module's addresses (azurerm_kubernetes_cluster.main and
# azurerm_kubernetes_cluster_node_pool.node_pool_create_before_destroy["key"], or
# node_pool_create_after_destroy for a pool with create_before_destroy = false), with its
# defaults (variables.tf: Standard_D2s_v3, 2 agents, no autoscaling; a pool's priority Regular).
# The cluster runs in var.location, else in its resource group's location, which the module reads
# with a data source. Networking, identity, monitoring and add-ons are not modelled.

variable "resource_group_name" {
  type    = string
  default = null
}

variable "location" {
  type    = string
  default = null
}

variable "tags" {
  type     = map(string)
  default  = {}
  nullable = false
}

variable "agents_pool_name" {
  type    = string
  default = "nodepool"
}

variable "agents_size" {
  type    = string
  default = "Standard_D2s_v3"
}

variable "agents_count" {
  type    = number
  default = 2
}

variable "enable_auto_scaling" {
  type    = bool
  default = false
}

variable "auto_scaling_enabled" {
  type    = bool
  default = null
}

variable "agents_min_count" {
  type    = number
  default = null
}

variable "agents_max_count" {
  type    = number
  default = null
}

variable "agents_labels" {
  type    = map(string)
  default = {}
}

# The default pool's taints ("key=value:Effect"), and whether it runs critical add-ons only
# (AKS then taints it CriticalAddonsOnly=true:NoSchedule).
variable "agents_taints" {
  type    = list(string)
  default = null
}

variable "only_critical_addons_enabled" {
  type    = bool
  default = null
}

# The zones the default pool's nodes run in (each node pool's are its zones).
variable "agents_availability_zones" {
  type    = list(string)
  default = null
}

variable "agents_tags" {
  type     = map(string)
  default  = {}
  nullable = false
}

variable "node_pools" {
  type     = any
  default  = {}
  nullable = false
}

data "azurerm_resource_group" "main" {
  name = var.resource_group_name
}

locals {
  autoscale = coalesce(var.auto_scaling_enabled, var.enable_auto_scaling)
  pools = { for k, p in var.node_pools : k => merge({
    node_count            = null
    min_count             = null
    max_count             = null
    priority              = "Regular"
    tags                  = {}
    node_labels           = null
    node_taints           = null
    zones                 = null
    create_before_destroy = true
    enable_auto_scaling   = try(p.auto_scaling_enabled, false)
  }, p) }
}

resource "azurerm_kubernetes_cluster" "main" {
  location = var.location != null ? var.location : data.azurerm_resource_group.main.location
  tags     = var.tags

  default_node_pool {
    name                         = var.agents_pool_name
    vm_size                      = var.agents_size
    enable_auto_scaling          = local.autoscale
    node_count                   = var.agents_count
    min_count                    = var.agents_min_count
    max_count                    = var.agents_max_count
    node_labels                  = var.agents_labels
    node_taints                  = var.agents_taints
    zones                        = var.agents_availability_zones
    only_critical_addons_enabled = var.only_critical_addons_enabled
    tags                         = merge(var.tags, var.agents_tags)
  }
}

resource "azurerm_kubernetes_cluster_node_pool" "node_pool_create_before_destroy" {
  for_each = { for k, p in local.pools : k => p if p.create_before_destroy }

  kubernetes_cluster_id = azurerm_kubernetes_cluster.main.id
  # The module adds four random characters to the name of a pool it replaces before destroying.
  name                = "${each.value.name}${substr(md5(uuid()), 0, 4)}"
  vm_size             = each.value.vm_size
  enable_auto_scaling = each.value.enable_auto_scaling
  node_count          = each.value.node_count
  min_count           = each.value.min_count
  max_count           = each.value.max_count
  node_labels         = each.value.node_labels
  node_taints         = each.value.node_taints
  zones               = each.value.zones
  priority            = each.value.priority
  tags                = each.value.tags
}

resource "azurerm_kubernetes_cluster_node_pool" "node_pool_create_after_destroy" {
  for_each = { for k, p in local.pools : k => p if !p.create_before_destroy }

  kubernetes_cluster_id = azurerm_kubernetes_cluster.main.id
  name                  = each.value.name
  vm_size               = each.value.vm_size
  enable_auto_scaling   = each.value.enable_auto_scaling
  node_count            = each.value.node_count
  min_count             = each.value.min_count
  max_count             = each.value.max_count
  node_labels           = each.value.node_labels
  node_taints           = each.value.node_taints
  zones                 = each.value.zones
  priority              = each.value.priority
  tags                  = each.value.tags
}
