# Azure Container Apps GPU workload profiles: listed unpriced with the reason (their prices are not in the catalog); the general-purpose profile is not listed.
resource "azurerm_container_app_environment" "ml" {
  name                = "ml"
  location            = "East US"
  resource_group_name = "rg"
  tags                = { team = "ml", project = "serve", env = "prod" }
  workload_profile {
    name                  = "gpu"
    workload_profile_type = "NC24-A100"
    minimum_count         = 1
    maximum_count         = 3
  }
  workload_profile {
    name                  = "t4"
    workload_profile_type = "Consumption-GPU-NC8as-T4"
  }
  workload_profile {
    name                  = "general"
    workload_profile_type = "D4"
    minimum_count         = 1
    maximum_count         = 2
  }
}
