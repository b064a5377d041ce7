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
