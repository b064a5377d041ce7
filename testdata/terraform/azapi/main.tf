# AKS declared with the azapi provider, as Azure Verified Modules and teams needing new ARM
# features do: the cluster and its pools are ARM resources whose body is the request ARM takes.
terraform {
  required_providers {
    azapi = { source = "Azure/azapi", version = "~> 2.0" }
  }
}

variable "location" {
  type    = string
  default = "eastus"
}

locals {
  tags = { team = "vision", project = "detect", env = "prod" }
}

resource "azapi_resource" "rg" {
  type     = "Microsoft.Resources/resourceGroups@2024-03-01"
  name     = "vision"
  location = var.location
}

resource "azapi_resource" "aks" {
  type      = "Microsoft.ContainerService/managedClusters@2025-05-01"
  name      = "vision"
  parent_id = azapi_resource.rg.id
  location  = var.location
  tags      = local.tags
  body = {
    properties = {
      dnsPrefix = "vision"
      agentPoolProfiles = [
        { name = "system", mode = "System", vmSize = "Standard_D4s_v5", count = 3 },
      ]
    }
  }
}

# Training: A100 nodes, autoscaled between 1 and 4.
resource "azapi_resource" "train" {
  type      = "Microsoft.ContainerService/managedClusters/agentPools@2025-05-01"
  name      = "train"
  parent_id = azapi_resource.aks.id
  body = {
    properties = {
      vmSize            = "Standard_NC24ads_A100_v4"
      enableAutoScaling = true
      minCount          = 1
      maxCount          = 4
      nodeTaints        = ["sku=gpu:NoSchedule"]
      tags              = local.tags
    }
  }
}

# Batch inference on spot T4s, written for azapi 1.x with a JSON body.
resource "azapi_resource" "batch" {
  type      = "Microsoft.ContainerService/managedClusters/agentPools@2023-09-01"
  name      = "batch"
  parent_id = azapi_resource.aks.id
  body = jsonencode({
    properties = {
      vmSize           = "Standard_NC8as_T4_v3"
      count            = 2
      scaleSetPriority = "Spot"
      tags             = merge(local.tags, { env = "dev" })
    }
  })
}

# An Azure Machine Learning workspace with a low-priority A100 training cluster that idles at
# zero nodes and scales to 4, in the workspace's region.
resource "azapi_resource" "ml" {
  type      = "Microsoft.MachineLearningServices/workspaces@2024-04-01"
  name      = "vision-ml"
  parent_id = azapi_resource.rg.id
  location  = var.location
  identity {
    type = "SystemAssigned"
  }
  body = { properties = {} }
  tags = local.tags
}

resource "azapi_resource" "aml_a100" {
  type      = "Microsoft.MachineLearningServices/workspaces/computes@2024-04-01"
  name      = "a100-cluster"
  parent_id = azapi_resource.ml.id
  body = {
    properties = {
      computeType = "AmlCompute"
      properties = {
        vmSize        = "Standard_NC24ads_A100_v4"
        vmPriority    = "LowPriority"
        scaleSettings = { minNodeCount = 0, maxNodeCount = 4 }
      }
    }
  }
  tags = local.tags
}

# A managed online endpoint in the workspace, and two deployments behind it: one on two A10
# VMs that Azure Monitor autoscales up to 6, one that scales on utilization between 1 and 3
# A100 VMs. Both are in the endpoint's
# region. A deployment on Kubernetes runs on an attached cluster's nodes: not listed.
resource "azapi_resource" "chat" {
  type      = "Microsoft.MachineLearningServices/workspaces/onlineEndpoints@2024-04-01"
  name      = "chat"
  parent_id = azapi_resource.ml.id
  location  = var.location
  body = {
    kind       = "Managed"
    properties = { authMode = "Key" }
  }
  tags = local.tags
}

resource "azapi_resource" "chat_blue" {
  type      = "Microsoft.MachineLearningServices/workspaces/onlineEndpoints/deployments@2024-04-01"
  name      = "blue"
  parent_id = azapi_resource.chat.id
  body = {
    sku = { name = "Default", capacity = 2 }
    properties = {
      endpointComputeType = "Managed"
      instanceType        = "Standard_NV36ads_A10_v5"
      model               = "azureml:chat-model:3"
    }
  }
  tags = local.tags
}

resource "azapi_resource" "chat_green" {
  type      = "Microsoft.MachineLearningServices/workspaces/onlineEndpoints/deployments@2024-04-01"
  name      = "green"
  parent_id = azapi_resource.chat.id
  body = {
    sku = { name = "Default", capacity = 1 }
    properties = {
      endpointComputeType = "Managed"
      instanceType        = "Standard_NC24ads_A100_v4"
      scaleSettings       = { scaleType = "TargetUtilization", minInstances = 1, maxInstances = 3 }
    }
  }
  tags = local.tags
}

resource "azapi_resource" "chat_k8s" {
  type      = "Microsoft.MachineLearningServices/workspaces/onlineEndpoints/deployments@2024-04-01"
  name      = "k8s"
  parent_id = azapi_resource.chat.id
  body = {
    properties = {
      endpointComputeType = "Kubernetes"
      instanceType        = "gpu-instance-type"
    }
  }
}

resource "azurerm_monitor_autoscale_setting" "chat_blue" {
  name                = "chat-blue"
  resource_group_name = "vision"
  location            = var.location
  target_resource_id  = azapi_resource.chat_blue.id
  profile {
    name = "default"
    capacity {
      default = 2
      minimum = 2
      maximum = 6
    }
  }
}

# A render farm of T4 VMs that an ARM autoscale setting runs at 3 from 08:00 to 20:00 on
# weekdays (Berlin time) and at none otherwise, up to 6: 3 VMs for 261 × 12 hours a year, 261
# hours a month.
resource "azapi_resource" "render" {
  type      = "Microsoft.Compute/virtualMachineScaleSets@2024-07-01"
  name      = "render"
  parent_id = azapi_resource.rg.id
  location  = var.location
  body = {
    sku = { name = "Standard_NC8as_T4_v3", capacity = 0 }
  }
  tags = local.tags
}

resource "azapi_resource" "render_hours" {
  type      = "Microsoft.Insights/autoscalesettings@2022-10-01"
  name      = "render-hours"
  parent_id = azapi_resource.rg.id
  location  = var.location
  body = {
    properties = {
      enabled           = true
      targetResourceUri = azapi_resource.render.id
      profiles = [
        { name = "default", capacity = { default = "0", minimum = "0", maximum = "6" } },
        {
          name     = "day"
          capacity = { default = "3", minimum = "3", maximum = "6" }
          recurrence = {
            frequency = "Week"
            schedule  = { timeZone = "W. Europe Standard Time", days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"], hours = [8], minutes = [0] }
          }
        },
        {
          name     = "night"
          capacity = { default = "0", minimum = "0", maximum = "6" }
          recurrence = {
            frequency = "Week"
            schedule  = { timeZone = "W. Europe Standard Time", days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"], hours = [20], minutes = [0] }
          }
        },
      ]
    }
  }
}
