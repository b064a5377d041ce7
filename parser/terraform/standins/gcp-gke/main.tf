# gpuguard's stand-in for terraform-google-modules/kubernetes-engine/google and its cluster
# variants (private-cluster, beta-*): the node pools of var.node_pools at the module's address
# (google_container_node_pool.pools["name"]), with its defaults (cluster.tf: autoscaling on with
# min_count 1, node_count 1 without autoscaling, e2-medium, accelerators from accelerator_count and
# accelerator_type, GKE Sandbox from sandbox_enabled), placed where the cluster is: the region when regional (the default), else
# the first zone, with the other zones as node locations. The cluster's default pool, which the
# module creates with var.initial_node_count (0 by default) e2-medium nodes and may remove, is
# not modelled. Of var.cluster_autoscaling, node auto-provisioning's GPU limits (gpu_resources,
# used only when enabled, as the module's autoscaling_resource_limits local does) are kept; its
# cpu and memory limits are not GPUs.

variable "regional" {
  type    = bool
  default = true
}

variable "region" {
  type    = string
  default = null
}

variable "zones" {
  type    = list(string)
  default = []
}

variable "node_pools" {
  type    = any
  default = [{ name = "default-node-pool" }]
}

# GKE Sandbox for every pool that does not set sandbox_enabled itself (the beta-* variants').
variable "sandbox_enabled" {
  type    = bool
  default = false
}

variable "node_pools_labels" {
  type    = any
  default = {}
}

variable "node_pools_resource_labels" {
  type    = any
  default = {}
}

# Taints by pool name, "all" for every pool: lists of { key, value, effect }.
variable "node_pools_taints" {
  type    = any
  default = {}
}

variable "cluster_resource_labels" {
  type    = any
  default = {}
}

variable "cluster_autoscaling" {
  type    = any
  default = { enabled = false, gpu_resources = [] }
}

locals {
  location = var.regional ? var.region : try(var.zones[0], null)
  # A zonal cluster's other zones, or a regional cluster's chosen zones (GKE picks three when
  # none are given).
  node_locations = var.regional ? (length(var.zones) > 0 ? var.zones : null) : (length(var.zones) > 1 ? slice(var.zones, 1, length(var.zones)) : null)
  node_pools     = { for np in var.node_pools : np.name => np }
}

resource "google_container_cluster" "primary" {
  location                 = local.location
  node_locations           = local.node_locations
  remove_default_node_pool = true
  resource_labels          = var.cluster_resource_labels

  cluster_autoscaling {
    enabled = try(var.cluster_autoscaling.enabled, false)
    dynamic "resource_limits" {
      for_each = try(var.cluster_autoscaling.enabled, false) ? try(var.cluster_autoscaling.gpu_resources, []) : []
      content {
        resource_type = resource_limits.value.resource_type
        minimum       = try(resource_limits.value.minimum, null)
        maximum       = resource_limits.value.maximum
      }
    }
  }
}

resource "google_container_node_pool" "pools" {
  for_each = local.node_pools

  name           = each.key
  location       = local.location
  cluster        = google_container_cluster.primary.name
  node_locations = lookup(each.value, "node_locations", "") != "" ? split(",", each.value["node_locations"]) : null

  node_count         = lookup(each.value, "autoscaling", true) ? null : lookup(each.value, "node_count", 1)
  initial_node_count = lookup(each.value, "autoscaling", true) ? lookup(each.value, "initial_node_count", lookup(each.value, "min_count", 1)) : null

  dynamic "autoscaling" {
    for_each = lookup(each.value, "autoscaling", true) ? [each.value] : []
    content {
      min_node_count       = contains(keys(autoscaling.value), "total_min_count") ? null : lookup(autoscaling.value, "min_count", 1)
      max_node_count       = contains(keys(autoscaling.value), "total_max_count") ? null : lookup(autoscaling.value, "max_count", 100)
      total_min_node_count = try(autoscaling.value.total_min_count, null)
      total_max_node_count = try(autoscaling.value.total_max_count, null)
    }
  }

  node_config {
    machine_type = lookup(each.value, "machine_type", "e2-medium")
    spot         = lookup(each.value, "spot", false)
    preemptible  = lookup(each.value, "preemptible", false)
    labels       = merge(try(var.node_pools_labels["all"], {}), try(var.node_pools_labels[each.key], {}))
    resource_labels = merge(
      var.cluster_resource_labels,
      try(var.node_pools_resource_labels["all"], {}),
      try(var.node_pools_resource_labels[each.key], {}),
    )

    dynamic "taint" {
      for_each = concat(try(var.node_pools_taints["all"], []), try(var.node_pools_taints[each.key], []))
      content {
        key    = taint.value.key
        value  = taint.value.value
        effect = taint.value.effect
      }
    }

    dynamic "sandbox_config" {
      for_each = tobool(lookup(each.value, "sandbox_enabled", var.sandbox_enabled)) ? ["gvisor"] : []
      content {
        sandbox_type = sandbox_config.value
      }
    }

    dynamic "guest_accelerator" {
      for_each = lookup(each.value, "accelerator_count", 0) > 0 ? [1] : []
      content {
        type  = lookup(each.value, "accelerator_type", "")
        count = lookup(each.value, "accelerator_count", 0)

        # The module sets the driver version only when a pool names one (gpu_driver_version).
        dynamic "gpu_driver_installation_config" {
          for_each = lookup(each.value, "gpu_driver_version", "") != "" ? [1] : []
          content {
            gpu_driver_version = lookup(each.value, "gpu_driver_version", "")
          }
        }
      }
    }
  }
}
