# The node pool has no location: it takes the cluster's, through kubernetes_cluster_id.
resource "azurerm_kubernetes_cluster" "aks" {
  name                = "aks"
  location            = "eastus"
  resource_group_name = "ml"
  dns_prefix          = "aks"
  default_node_pool {
    name       = "system"
    vm_size    = "Standard_NC4as_T4_v3"
    node_count = 2
  }
  tags = { team = "platform", project = "aks", env = "prod" }
}

resource "azurerm_kubernetes_cluster_node_pool" "gpu" {
  name                  = "gpu"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.aks.id
  vm_size               = "Standard_NC24ads_A100_v4"
  auto_scaling_enabled  = true
  min_count             = 1
  max_count             = 4
  priority              = "Spot"
  tags                  = { team = "research" }
}
