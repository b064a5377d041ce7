# gpuguard's stand-in for modules/nodepool of the AzureRM releases of
# Azure/avm-res-containerservice-managedcluster: one node pool,
# azurerm_kubernetes_cluster_node_pool.this[0], or create_before_destroy_node_pool[0] (its name
# with four characters of a random hash) when the pool is created before the one it replaces.

variable "name" {
  type = string
}

variable "cluster_resource_id" {
  type    = string
  default = null
}

variable "create_nodepool_before_destroy" {
  type     = bool
  default  = false
  nullable = false
}

variable "vm_size" {
  type    = string
  default = null
}

variable "auto_scaling_enabled" {
  type    = bool
  default = null
}

variable "node_count" {
  type    = number
  default = null
}

variable "min_count" {
  type    = number
  default = null
}

variable "max_count" {
  type    = number
  default = null
}

variable "mode" {
  type    = string
  default = null
}

variable "node_labels" {
  type    = map(string)
  default = null
}

variable "node_taints" {
  type    = list(string)
  default = null
}

variable "priority" {
  type    = string
  default = null
}

variable "eviction_policy" {
  type    = string
  default = null
}

variable "spot_max_price" {
  type    = number
  default = null
}

variable "zones" {
  type    = list(string)
  default = null
}

variable "tags" {
  type    = map(string)
  default = null
}

resource "azurerm_kubernetes_cluster_node_pool" "this" {
  count                 = var.create_nodepool_before_destroy ? 0 : 1
  name                  = var.name
  kubernetes_cluster_id = var.cluster_resource_id
  vm_size               = var.vm_size
  auto_scaling_enabled  = var.auto_scaling_enabled
  node_count            = var.node_count
  min_count             = var.min_count
  max_count             = var.max_count
  mode                  = var.mode
  node_labels           = var.node_labels
  node_taints           = var.node_taints
  priority              = var.priority
  eviction_policy       = var.eviction_policy
  spot_max_price        = var.spot_max_price
  zones                 = var.zones
  tags                  = var.tags
}

resource "azurerm_kubernetes_cluster_node_pool" "create_before_destroy_node_pool" {
  count                 = var.create_nodepool_before_destroy ? 1 : 0
  name                  = "${var.name}${substr(md5(uuid()), 0, 4)}"
  kubernetes_cluster_id = var.cluster_resource_id
  vm_size               = var.vm_size
  auto_scaling_enabled  = var.auto_scaling_enabled
  node_count            = var.node_count
  min_count             = var.min_count
  max_count             = var.max_count
  mode                  = var.mode
  node_labels           = var.node_labels
  node_taints           = var.node_taints
  priority              = var.priority
  eviction_policy       = var.eviction_policy
  spot_max_price        = var.spot_max_price
  zones                 = var.zones
  tags                  = var.tags
}
