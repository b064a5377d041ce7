# Resource types gpuguard does not price that run GPU machines (an EMR cluster, a DevTest Labs
# VM, a Dataproc cluster): warnings with the line of the machine type, never a silent $0. Values
# from variables, launch templates (priced through what launches them) and CPU types are not
# warned about.

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

resource "azurerm_dev_test_linux_virtual_machine" "lab" {
  name                   = "lab-gpu"
  lab_name               = "ml-lab"
  resource_group_name    = "rg"
  location               = "eastus"
  size                   = "Standard_NC6s_v3"
  username               = "azure"
  storage_type           = "Premium"
  lab_subnet_name        = "default"
  lab_virtual_network_id = "vnet"
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
