# gpuguard's stand-in for modules/agentpool of Azure/avm-res-containerservice-managedcluster: one
# agent pool as the AKS agentPools resource the module declares, azapi_resource.this[0], or
# this_create_before_destroy[0] (its name with four characters of a random hash) when the pool
# is created before the one it replaces; none when output_data_only. Its body follows the
# module's locals.tf: count is left to the autoscaler when min_count and max_count are both set,
# and ARM's default count is 1. Its outputs are that body's properties and the pool's name, which
# the cluster's default pool is made of.

variable "name" {
  type = string
}

variable "parent_id" {
  type    = string
  default = null
}

variable "create_before_destroy" {
  type     = bool
  default  = false
  nullable = false
}

variable "output_data_only" {
  type    = bool
  default = null
}

variable "vm_size" {
  type    = string
  default = null
}

variable "count_of" {
  type    = number
  default = null
}

variable "enable_auto_scaling" {
  type    = bool
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

variable "os_type" {
  type    = string
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

variable "scale_set_priority" {
  type    = string
  default = null
}

variable "scale_set_eviction_policy" {
  type    = string
  default = null
}

variable "spot_max_price" {
  type    = number
  default = null
}

variable "gpu_profile" {
  type    = any
  default = null
}

variable "availability_zones" {
  type    = list(string)
  default = null
}

variable "tags" {
  type    = map(string)
  default = null
}

locals {
  created = var.output_data_only == true ? 0 : 1
  body = {
    properties = {
      vmSize                 = var.vm_size
      count                  = var.max_count != null && var.min_count != null ? null : var.count_of
      enableAutoScaling      = var.enable_auto_scaling
      minCount               = var.min_count
      maxCount               = var.max_count
      mode                   = var.mode
      osType                 = var.os_type
      nodeLabels             = var.node_labels
      nodeTaints             = var.node_taints
      scaleSetPriority       = var.scale_set_priority
      scaleSetEvictionPolicy = var.scale_set_eviction_policy
      spotMaxPrice           = var.spot_max_price
      gpuProfile             = var.gpu_profile == null ? null : { driver = try(var.gpu_profile.driver, null) }
      availabilityZones      = var.availability_zones
      tags                   = var.tags
    }
  }
}

resource "azapi_resource" "this" {
  count     = var.create_before_destroy ? 0 : local.created
  type      = "Microsoft.ContainerService/managedClusters/agentPools@2025-10-01"
  name      = var.name
  parent_id = var.parent_id
  body      = local.body
}

resource "azapi_resource" "this_create_before_destroy" {
  count     = var.create_before_destroy ? local.created : 0
  type      = "Microsoft.ContainerService/managedClusters/agentPools@2025-10-01"
  name      = "${var.name}${substr(sha256(uuid()), 0, 4)}"
  parent_id = var.parent_id
  body      = local.body
}

output "body_properties" {
  value = local.body.properties
}

output "name" {
  value = var.name
}
