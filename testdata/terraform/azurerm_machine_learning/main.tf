resource "azurerm_machine_learning_workspace" "ws" {
  name                = "ws"
  location            = "eastus"
  resource_group_name = "ml"
}

resource "azurerm_machine_learning_compute_cluster" "train" {
  name                          = "train"
  location                      = "eastus"
  machine_learning_workspace_id = azurerm_machine_learning_workspace.ws.id
  vm_size                       = "Standard_NC24ads_A100_v4"
  vm_priority                   = "LowPriority"
  scale_settings {
    min_node_count                       = 2
    max_node_count                       = 8
    scale_down_nodes_after_idle_duration = "PT30M"
  }
}

resource "azurerm_machine_learning_compute_instance" "notebook" {
  name                          = "notebook"
  machine_learning_workspace_id = azurerm_machine_learning_workspace.ws.id
  virtual_machine_size          = "Standard_NC4as_T4_v3"
}
