resource "azurerm_linux_virtual_machine_scale_set" "inference" {
  name                = "inference"
  resource_group_name = "ml"
  location            = "eastus"
  sku                 = "Standard_NC8as_T4_v3"
  instances           = 4
  admin_username      = "azure"
}

resource "azurerm_windows_virtual_machine_scale_set" "render" {
  name                = "render"
  resource_group_name = "ml"
  location            = "eastus"
  sku                 = "Standard_NC6s_v3"
  instances           = 2
  priority            = "Spot"
  admin_username      = "azure"
  admin_password      = "not-a-real-password-1!"
}

# The deprecated azurerm_virtual_machine_scale_set: sku block, low priority.
resource "azurerm_virtual_machine_scale_set" "legacy" {
  name                = "legacy"
  location            = "eastus"
  resource_group_name = "ml"
  upgrade_policy_mode = "Manual"
  priority            = "Low"
  sku {
    name     = "Standard_NC4as_T4_v3"
    tier     = "Standard"
    capacity = 3
  }
  os_profile_windows_config {}
}
