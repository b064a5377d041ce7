provider "aws" {
  region = "sa-east-1"
}

provider "google" {
  project = "ml"
  region  = "europe-north2"
}

resource "aws_instance" "saopaulo" {
  instance_type = "g5.xlarge"
}

resource "google_compute_instance" "stockholm" {
  name         = "stockholm"
  machine_type = "a2-highgpu-1g"
  scheduling {
    on_host_maintenance = "TERMINATE"
  }
}

resource "azurerm_linux_virtual_machine" "amsterdam" {
  name                  = "amsterdam"
  resource_group_name   = "ml"
  location              = "westeurope"
  size                  = "Standard_NC24ads_A100_v4"
  admin_username        = "azure"
  network_interface_ids = []
}
