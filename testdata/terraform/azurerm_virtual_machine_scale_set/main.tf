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

# A development scale set that an autoscale setting runs at 2 VMs in New York office hours
# (weekdays 09:00 to 18:00) and at none otherwise: priced by time, 2 VMs for 195.75 hours.
resource "azurerm_linux_virtual_machine_scale_set" "dev" {
  name                = "dev"
  resource_group_name = "ml"
  location            = "eastus"
  sku                 = "Standard_NC8as_T4_v3"
  instances           = 0
  admin_username      = "azure"
}

resource "azurerm_monitor_autoscale_setting" "dev" {
  name                = "dev"
  resource_group_name = "ml"
  location            = "eastus"
  target_resource_id  = azurerm_linux_virtual_machine_scale_set.dev.id
  profile {
    name = "default"
    capacity {
      default = 0
      minimum = 0
      maximum = 2
    }
  }
  profile {
    name = "office"
    capacity {
      default = 2
      minimum = 2
      maximum = 4
    }
    recurrence {
      timezone = "Eastern Standard Time"
      days     = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
      hours    = [9]
      minutes  = [0]
    }
  }
  profile {
    name = "night"
    capacity {
      default = 0
      minimum = 0
      maximum = 2
    }
    recurrence {
      timezone = "Eastern Standard Time"
      days     = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
      hours    = [18]
      minutes  = [0]
    }
  }
}
