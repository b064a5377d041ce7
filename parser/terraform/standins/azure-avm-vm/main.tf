# gpuguard's stand-in for Azure/avm-res-compute-virtualmachine/azurerm (Azure Verified Modules'
# virtual machine): the one VM the module declares, at its address, read 2026-11-23 from the
# module's main.linux_vm.tf, main.windows_vm.tf and variables.tf.
#   - Its AzureRM releases: azurerm_linux_virtual_machine.this[0] when os_type is Linux,
#     azurerm_windows_virtual_machine.this[0] when it is Windows (the module's default), of size
#     sku_size (default Standard_D2ds_v5), in location and zone, with priority (Regular or Spot),
#     eviction_policy and max_bid_price, tagged with tags.
#   - Its AzAPI releases (the migration of 2026-08/09, with moved blocks from the addresses
#     above): azapi_resource.this_linux_virtual_machine[0] or this_windows_virtual_machine[0], a
#     Microsoft.Compute/virtualMachines body with the same size, priority and zone. A call is read
#     as one of those when it sets an input only they take (resource_types, retry,
#     ignore_body_changes: the AzAPI interfaces of the AVM specification, TFFR6-TFFR8). The
#     release a version constraint admits is not known to gpuguard: a call that sets none of them
#     gets the AzureRM addresses, whichever release it uses.
#   - custom_data: the Linux VM's custom_data (AzureRM), or its sensitive_body's
#     properties.osProfile.customData (AzAPI, main.linux_vm.tf's linux_vm_sensitive_body).
#   - extensions: a map of VM extensions (name, publisher, type, type_handler_version, settings,
#     protected_settings), here azurerm_virtual_machine_extension.this_extension[key] on the VM
#     in every release. The AzureRM releases split them by deploy_sequence over this_extension
#     and this_extension_1..4 (main.extensions.tf); the AzAPI releases declare them in a
#     submodule. gpuguard reads their Custom Script commands as the VM's boot texts.
# Networking, disks, identity, backup and the generated secrets are not modelled; the capacity
# reservation group a resource ID names is not followed.

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

variable "os_type" {
  type     = string
  default  = "Windows"
  nullable = false
}

variable "sku_size" {
  type     = string
  default  = "Standard_D2ds_v5"
  nullable = false
}

variable "zone" {
  type    = string
  default = null
}

variable "priority" {
  type    = string
  default = "Regular"
}

variable "eviction_policy" {
  type    = string
  default = null
}

variable "max_bid_price" {
  type    = number
  default = -1
}

variable "tags" {
  type    = map(string)
  default = null
}

variable "custom_data" {
  type    = string
  default = null
}

variable "extensions" {
  type     = any
  default  = {}
  nullable = false
}

variable "resource_types" {
  type    = any
  default = null
}

variable "retry" {
  type    = any
  default = null
}

variable "ignore_body_changes" {
  type    = any
  default = null
}

locals {
  linux = lower(var.os_type) == "linux"
  azapi = var.resource_types != null || var.retry != null || var.ignore_body_changes != null
  body_properties = {
    hardwareProfile = { vmSize = var.sku_size }
    priority        = var.priority
    evictionPolicy  = var.eviction_policy
  }
  vm_id = local.azapi ? (local.linux ? one(azapi_resource.this_linux_virtual_machine[*].id) : one(azapi_resource.this_windows_virtual_machine[*].id)) : (local.linux ? one(azurerm_linux_virtual_machine.this[*].id) : one(azurerm_windows_virtual_machine.this[*].id))
}

resource "azurerm_linux_virtual_machine" "this" {
  count = !local.azapi && local.linux ? 1 : 0

  name                = var.name
  location            = var.location
  resource_group_name = var.resource_group_name
  size                = var.sku_size
  zone                = var.zone
  priority            = var.priority
  eviction_policy     = var.eviction_policy
  max_bid_price       = var.max_bid_price
  custom_data         = var.custom_data
  tags                = var.tags
}

resource "azurerm_windows_virtual_machine" "this" {
  count = !local.azapi && !local.linux ? 1 : 0

  name                = var.name
  location            = var.location
  resource_group_name = var.resource_group_name
  size                = var.sku_size
  zone                = var.zone
  priority            = var.priority
  eviction_policy     = var.eviction_policy
  max_bid_price       = var.max_bid_price
  tags                = var.tags
}

resource "azapi_resource" "this_linux_virtual_machine" {
  count = local.azapi && local.linux ? 1 : 0

  type     = "Microsoft.Compute/virtualMachines@2024-11-01"
  name     = var.name
  location = var.location
  body = {
    properties = merge(local.body_properties, { osProfile = { linuxConfiguration = {} } })
    zones      = var.zone == null ? null : [var.zone]
  }
  sensitive_body = var.custom_data == null ? null : { properties = { osProfile = { customData = var.custom_data } } }
  tags           = var.tags
}

resource "azapi_resource" "this_windows_virtual_machine" {
  count = local.azapi && !local.linux ? 1 : 0

  type     = "Microsoft.Compute/virtualMachines@2024-11-01"
  name     = var.name
  location = var.location
  body = {
    properties = merge(local.body_properties, { osProfile = { windowsConfiguration = {} } })
    zones      = var.zone == null ? null : [var.zone]
  }
  tags = var.tags
}

resource "azurerm_virtual_machine_extension" "this_extension" {
  for_each = var.extensions

  name                 = each.value.name
  virtual_machine_id   = local.vm_id
  publisher            = each.value.publisher
  type                 = each.value.type
  type_handler_version = try(each.value.type_handler_version, null)
  settings             = try(each.value.settings, null)
  protected_settings   = try(each.value.protected_settings, null)
}
