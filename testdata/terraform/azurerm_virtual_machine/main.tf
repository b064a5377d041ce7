resource "azurerm_linux_virtual_machine" "train" {
  name                = "train"
  resource_group_name = "ml"
  location            = "East US"
  size                = "Standard_ND96asr_v4"
  admin_username      = "azure"
  network_interface_ids = []
  tags = { team = "research", project = "llm", env = "prod" }
}

resource "azurerm_linux_virtual_machine" "spot" {
  name                = "spot"
  resource_group_name = "ml"
  location            = "eastus"
  size                = "Standard_NC24ads_A100_v4"
  priority            = "Spot"
  eviction_policy     = "Deallocate"
  admin_username      = "azure"
  network_interface_ids = []
}

resource "azurerm_windows_virtual_machine" "viz" {
  name                = "viz"
  resource_group_name = "ml"
  location            = "eastus"
  size                = "Standard_NV36ads_A10_v5"
  admin_username      = "azure"
  admin_password      = "not-a-real-password-1!"
  network_interface_ids = []
}

# The deprecated azurerm_virtual_machine, still common in older configurations.
resource "azurerm_virtual_machine" "legacy" {
  name                  = "legacy"
  location              = "eastus"
  resource_group_name   = "ml"
  network_interface_ids = []
  vm_size               = "Standard_NC6s_v3"
  tags                  = { team = "research", project = "vision", env = "dev" }

  storage_os_disk {
    name          = "os"
    create_option = "FromImage"
  }
}
