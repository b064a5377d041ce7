# Resource types gpuguard does not price that run GPU machines (a GameLift fleet, a DevTest Labs
# VM, a Colab Enterprise runtime template): warnings with the line of the machine type, never a
# silent $0. Values
# from variables, launch templates (priced through what launches them) and CPU types are not
# warned about.

provider "aws" {
  region = "us-east-1"
}

variable "core_type" {
  default = "g5.xlarge"
}

resource "aws_gamelift_fleet" "render" {
  name              = "render-gpu"
  build_id          = "build-1"
  ec2_instance_type = "g4dn.2xlarge"
}

resource "aws_gamelift_fleet" "from_var" {
  name              = "x"
  build_id          = "build-1"
  ec2_instance_type = var.core_type
}

resource "aws_gamelift_fleet" "cpu" {
  name              = "cpu"
  build_id          = "build-1"
  ec2_instance_type = "c6i.4xlarge"
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

resource "google_colab_runtime_template" "ml" {
  name         = "ml"
  display_name = "ml"
  location     = "us-central1"
  machine_spec {
    machine_type      = "n1-standard-8"
    accelerator_type  = "NVIDIA_TESLA_T4"
    accelerator_count = 1
  }
}

resource "google_container_cluster" "named_like_a_type" {
  name     = "a3-cluster"
  location = "us-central1"
}
