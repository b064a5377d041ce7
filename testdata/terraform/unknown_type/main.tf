provider "aws" {
  region = "us-east-1"
}

resource "aws_instance" "future" {
  instance_type = "p9.96xlarge"
}

resource "aws_instance" "no_price" {
  instance_type = "p5e.48xlarge"
}

resource "azurerm_linux_virtual_machine" "future" {
  name                  = "future"
  resource_group_name   = "ml"
  location              = "eastus"
  size                  = "Standard_ND128isr_NDR_GB300_v9"
  admin_username        = "azure"
  network_interface_ids = []
}
