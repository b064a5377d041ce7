# Resource types gpuguard does not price that run GPU machines: warnings with the line of
# the machine type, never a silent $0. Values from variables, launch templates (priced through
# what launches them) and CPU types are not warned about.

provider "aws" {
  region = "us-east-1"
}

variable "core_type" {
  default = "g5.xlarge"
}

resource "aws_emr_cluster" "spark" {
  name          = "spark-gpu"
  release_label = "emr-7.0.0"
  master_instance_group {
    instance_type = "m6i.xlarge"
  }
  core_instance_group {
    instance_type  = "g4dn.2xlarge"
    instance_count = 4
  }
}

resource "aws_emr_cluster" "from_var" {
  name = "x"
  core_instance_group {
    instance_type = var.core_type
  }
}

resource "aws_emr_cluster" "cpu" {
  name = "cpu"
  core_instance_group {
    instance_type = "r6i.4xlarge"
  }
}

resource "aws_launch_template" "gpu" {
  instance_type = "p4d.24xlarge"
}

resource "azurerm_batch_pool" "render" {
  name                = "render"
  resource_group_name = "rg"
  account_name        = "acct"
  vm_size             = "Standard_NC6s_v3"
  node_agent_sku_id   = "batch.node.ubuntu 20.04"
}

resource "google_dataproc_cluster" "ml" {
  name   = "ml"
  region = "us-central1"
  cluster_config {
    worker_config {
      num_instances = 2
      machine_type  = "n1-standard-8"
      accelerators {
        accelerator_type  = "nvidia-tesla-t4"
        accelerator_count = 1
      }
    }
  }
}

resource "google_container_cluster" "named_like_a_type" {
  name     = "a3-cluster"
  location = "us-central1"
}
