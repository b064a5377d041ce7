# Azure Batch pools: a fixed-scale pool of dedicated and low-priority (Spot) T4 nodes, and an
# auto-scale A100 pool whose formula sets its nodes at run time. Both run in their account's region.

resource "azurerm_batch_account" "render" {
  name                = "render"
  resource_group_name = "rg"
  location            = "East US"
}

resource "azurerm_batch_pool" "gpu" {
  name                = "gpu"
  resource_group_name = "rg"
  account_name        = azurerm_batch_account.render.name
  vm_size             = "Standard_NC4as_T4_v3"
  node_agent_sku_id   = "batch.node.ubuntu 22.04"
  fixed_scale {
    target_dedicated_nodes    = 2
    target_low_priority_nodes = 6
  }
  metadata = { team = "render" }
}

resource "azurerm_batch_pool" "auto" {
  name                = "auto"
  resource_group_name = "rg"
  account_name        = azurerm_batch_account.render.name
  vm_size             = "Standard_NC24ads_A100_v4"
  node_agent_sku_id   = "batch.node.ubuntu 22.04"
  auto_scale {
    evaluation_interval = "PT15M"
    formula             = "$TargetDedicatedNodes = 0;"
  }
}
