provider "azurerm" {
  features {}
}

resource "azurerm_capacity_reservation_group" "gpu" {
  name                = "gpu-capacity"
  resource_group_name = "ml"
  location            = "East US"
}

resource "azurerm_capacity_reservation" "a100" {
  name                          = "nc24ads"
  capacity_reservation_group_id = azurerm_capacity_reservation_group.gpu.id

  sku {
    name     = "Standard_NC24ads_A100_v4"
    capacity = 2
  }
}

resource "azurerm_linux_virtual_machine" "inference" {
  name                          = "inference"
  resource_group_name           = "ml"
  location                      = "East US"
  size                          = "Standard_NC24ads_A100_v4"
  admin_username                = "ml"
  network_interface_ids         = ["nic"]
  capacity_reservation_group_id = azurerm_capacity_reservation_group.gpu.id

  os_disk {
    caching              = "ReadWrite"
    storage_account_type = "Premium_LRS"
  }

  tags = {
    team    = "assistant"
    project = "chat"
    env     = "prod"
  }
}
