# Azure/aks/azurerm through its stand-in: extra node pools (either lifecycle) and a GPU default
# pool whose location comes from the resource group (a data source: unresolved).

module "aks" {
  source              = "Azure/aks/azurerm"
  version             = "~> 9.0"
  resource_group_name = "ml"
  location            = "eastus"
  prefix              = "ml"
  tags                = { team = "ml" }
  node_pools = {
    gpu = {
      name       = "gpu"
      vm_size    = "Standard_NC24ads_A100_v4"
      node_count = 2
      tags       = { team = "ml", project = "llm", env = "prod" }
    }
    spot = {
      name                  = "spot"
      vm_size               = "Standard_NC4as_T4_v3"
      priority              = "Spot"
      enable_auto_scaling   = true
      min_count             = 1
      max_count             = 5
      create_before_destroy = false
    }
  }
}
module "aks2" {
  source              = "Azure/aks/azurerm"
  resource_group_name = "ml"
  prefix              = "x"
  agents_size         = "Standard_NC6s_v3"
}
