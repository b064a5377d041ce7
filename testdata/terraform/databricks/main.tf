# Databricks clusters run on the workspace's cloud VMs: gpuguard prices the driver and workers as
# instances (Databricks' DBUs come on top and are not in the catalog). A cluster runs in the
# region of the workspace its provider's host points at, unless a zone says otherwise.

resource "databricks_mws_workspaces" "aws" {
  account_id     = "00000000-0000-0000-0000-000000000000"
  workspace_name = "ml-aws"
  aws_region     = "us-east-1"
}

resource "azurerm_databricks_workspace" "azure" {
  name                = "ml-azure"
  resource_group_name = "ml"
  location            = "East US"
  sku                 = "premium"
}

provider "databricks" {
  host = databricks_mws_workspaces.aws.workspace_url
}

provider "databricks" {
  alias = "azure"
  host  = azurerm_databricks_workspace.azure.workspace_url
}

data "databricks_node_type" "gpu" {
  local_disk = true
  min_gpus   = 1
}

data "databricks_spark_version" "gpu_ml" {
  gpu = true
  ml  = true
}

data "databricks_node_type" "smallest" {
  local_disk = true
}

# A fixed-size GPU cluster: driver on demand, workers on spot with fallback (AWS).
resource "databricks_cluster" "training" {
  cluster_name            = "llm-training"
  spark_version           = "15.4.x-gpu-ml-scala2.12"
  node_type_id            = "g5.12xlarge"
  driver_node_type_id     = "g5.12xlarge"
  num_workers             = 4
  autotermination_minutes = 60
  aws_attributes {
    availability    = "SPOT_WITH_FALLBACK"
    first_on_demand = 1
    zone_id         = "us-east-1b"
  }
  custom_tags = {
    team    = "ml"
    project = "llm"
    env     = "prod"
  }
}

# Autoscaling, with a CPU driver: only the GPU workers are GPU resources.
resource "databricks_cluster" "inference" {
  cluster_name        = "batch-inference"
  spark_version       = "15.4.x-gpu-ml-scala2.12"
  node_type_id        = "g6.xlarge"
  driver_node_type_id = "m5.xlarge"
  autoscale {
    min_workers = 2
    max_workers = 10
  }
  aws_attributes {
    availability = "ON_DEMAND"
  }
}

# An Azure single-node GPU cluster, all on spot.
resource "databricks_cluster" "notebook" {
  provider      = databricks.azure
  cluster_name  = "research-notebook"
  spark_version = "15.4.x-gpu-ml-scala2.12"
  node_type_id  = "Standard_NC4as_T4_v3"
  num_workers   = 0
  azure_attributes {
    availability = "SPOT_AZURE"
  }
  spark_conf = {
    "spark.databricks.cluster.profile" = "singleNode"
    "spark.master"                     = "local[*]"
  }
}

# The node type comes from a data source that asks for a GPU: reported, with the reason.
resource "databricks_cluster" "from_data" {
  cluster_name  = "gpu-any"
  spark_version = data.databricks_spark_version.gpu_ml.id
  node_type_id  = data.databricks_node_type.gpu.id
  num_workers   = 1
}

# A CPU cluster from a data source: not a GPU resource, not reported.
resource "databricks_cluster" "etl" {
  cluster_name  = "etl"
  spark_version = "15.4.x-scala2.12"
  node_type_id  = data.databricks_node_type.smallest.id
  num_workers   = 8
}

# A pool keeps two GPU instances warm; a cluster takes its nodes from it.
resource "databricks_instance_pool" "gpu" {
  instance_pool_name = "gpu-pool"
  node_type_id       = "g4dn.xlarge"
  min_idle_instances = 2
  max_capacity       = 20
  aws_attributes {
    availability = "ON_DEMAND"
  }
}

resource "databricks_cluster" "pooled" {
  cluster_name     = "pooled"
  spark_version    = "15.4.x-gpu-ml-scala2.12"
  instance_pool_id = databricks_instance_pool.gpu.id
  num_workers      = 3
}

# A job's cluster exists while the job runs.
resource "databricks_job" "nightly" {
  name = "nightly-finetune"
  tags = {
    team    = "ml"
    project = "finetune"
    env     = "prod"
  }
  job_cluster {
    job_cluster_key = "gpu"
    new_cluster {
      spark_version = "15.4.x-gpu-ml-scala2.12"
      node_type_id  = "p4d.24xlarge"
      num_workers   = 1
      custom_tags   = { env = "staging" }
      aws_attributes {
        availability    = "SPOT"
        first_on_demand = 1
      }
    }
  }
  task {
    task_key        = "finetune"
    job_cluster_key = "gpu"
  }
}
