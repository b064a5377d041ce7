# gpuguard's stand-in for Azure/avm-res-compute-virtualmachinescaleset/azurerm (Azure Verified
# Modules' scale set, Flexible orchestration only), read 2026-11-23 from the module's main.tf and
# variables.tf: the scale set at the module's address,
# azurerm_orchestrated_virtual_machine_scale_set.virtual_machine_scale_set, of sku_name (none by
# default: a scale set VMs are attached to, which has none of its own) and instances, in location
# and zones, with priority (Regular by default, or Spot), priority_mix (Spot Priority Mix),
# eviction_policy and max_bid_price, tagged with tags. The module's AzAPI release declares the
# same scale set as azapi_resource.virtual_machine_scale_set (a moved block from this address),
# with the same inputs: gpuguard cannot tell it from the call and uses this address. Of the OS
# profile, os_profile's custom_data and whether it has a linux_configuration or a
# windows_configuration; the extension blocks (extension: name, publisher, type,
# type_handler_version, settings), each with its protected settings from
# extension_protected_setting by name. gpuguard reads their Custom Script commands as the
# instances' boot texts. Networking, disks and identity are not modelled.

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

variable "platform_fault_domain_count" {
  type    = number
  default = 1
}

variable "sku_name" {
  type    = string
  default = null
}

variable "instances" {
  type    = number
  default = null
}

variable "priority" {
  type    = string
  default = "Regular"
}

variable "priority_mix" {
  type    = any
  default = null
}

variable "eviction_policy" {
  type    = string
  default = null
}

variable "max_bid_price" {
  type    = number
  default = -1
}

variable "zones" {
  type    = set(string)
  default = ["1", "2", "3"]
}

variable "os_profile" {
  type    = any
  default = null
}

variable "extension" {
  type    = any
  default = null
}

variable "extension_protected_setting" {
  type      = map(string)
  default   = {}
  nullable  = false
  sensitive = true
}

variable "tags" {
  type    = map(string)
  default = null
}

resource "azurerm_orchestrated_virtual_machine_scale_set" "virtual_machine_scale_set" {
  name                        = var.name
  location                    = var.location
  resource_group_name         = var.resource_group_name
  platform_fault_domain_count = var.platform_fault_domain_count
  sku_name                    = var.sku_name
  instances                   = var.instances
  priority                    = var.priority
  eviction_policy             = var.eviction_policy
  max_bid_price               = var.max_bid_price
  zones                       = var.zones
  tags                        = var.tags

  dynamic "priority_mix" {
    for_each = var.priority_mix == null ? [] : [var.priority_mix]
    content {
      base_regular_count            = try(priority_mix.value.base_regular_count, null)
      regular_percentage_above_base = try(priority_mix.value.regular_percentage_above_base, null)
    }
  }

  dynamic "os_profile" {
    for_each = var.os_profile == null ? [] : [var.os_profile]
    content {
      custom_data = try(os_profile.value.custom_data, null)
      dynamic "linux_configuration" {
        for_each = try(os_profile.value.linux_configuration, null) == null ? [] : [os_profile.value.linux_configuration]
        content {
          admin_username = try(linux_configuration.value.admin_username, null)
        }
      }
      dynamic "windows_configuration" {
        for_each = try(os_profile.value.windows_configuration, null) == null ? [] : [os_profile.value.windows_configuration]
        content {
          admin_username = try(windows_configuration.value.admin_username, null)
        }
      }
    }
  }

  dynamic "extension" {
    for_each = var.extension == null ? [] : var.extension
    content {
      name                 = extension.value.name
      publisher            = extension.value.publisher
      type                 = extension.value.type
      type_handler_version = try(extension.value.type_handler_version, null)
      settings             = try(extension.value.settings, null)
      protected_settings   = lookup(var.extension_protected_setting, extension.value.name, "")
    }
  }
}
