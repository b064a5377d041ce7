# GPU nodes of self-managed clusters on Compute Engine and Azure: an RKE2 pool in a regional
# managed instance group, a kubeadm node for fine-tuning, and a k3s pool in a Spot scale set.
# Their nodes register with the labels and taints their metadata and custom data give them,
# which the pods in ../k8s select.
provider "google" {
  project = "ml-platform"
  region  = "us-central1"
}

provider "azurerm" {
  features {}
}

resource "google_compute_instance_template" "rke2_l4" {
  name_prefix  = "rke2-l4-"
  machine_type = "g2-standard-8"
  labels       = { team = "search", project = "rerank", env = "prod" }
  disk {
    source_image = "ubuntu-os-cloud/ubuntu-2204-lts"
  }
  network_interface {
    network = "default"
  }
  scheduling {
    on_host_maintenance = "TERMINATE"
  }
  metadata = {
    # cloud-init writes RKE2's configuration; the guest agent then starts the agent.
    user-data      = file("${path.module}/rke2-config.yaml")
    startup-script = "systemctl enable --now rke2-agent"
  }
}

resource "google_compute_region_instance_group_manager" "rke2_l4" {
  name               = "rke2-l4"
  region             = "us-central1"
  base_instance_name = "rke2-l4"
  target_size        = 3
  version {
    instance_template = google_compute_instance_template.rke2_l4.self_link
  }
}

resource "google_compute_instance" "kubeadm_a100" {
  name         = "finetune-a100"
  zone         = "us-central1-a"
  machine_type = "a2-highgpu-1g"
  labels       = { team = "research", project = "finetune", env = "dev" }
  boot_disk {
    initialize_params {
      image = "ubuntu-os-cloud/ubuntu-2204-lts"
    }
  }
  network_interface {
    network = "default"
  }
  scheduling {
    on_host_maintenance = "TERMINATE"
  }
  metadata_startup_script = <<-EOT
    cat > /etc/default/kubelet <<'EOF'
    KUBELET_EXTRA_ARGS="--node-labels=workload=finetune --register-with-taints=nvidia.com/gpu=present:NoSchedule"
    EOF
    kubeadm join 10.128.0.2:6443 --token "$(gcloud secrets versions access latest --secret=join-token)" \
      --discovery-token-ca-cert-hash sha256:1111111111111111111111111111111111111111111111111111111111111111
  EOT
}

resource "azurerm_linux_virtual_machine_scale_set" "k3s_t4" {
  name                = "k3s-t4"
  resource_group_name = "ml"
  location            = "eastus"
  sku                 = "Standard_NC4as_T4_v3"
  instances           = 2
  priority            = "Spot"
  eviction_policy     = "Delete"
  admin_username      = "azureuser"
  tags                = { team = "docs", project = "ocr", env = "prod" }
  custom_data = base64encode(<<-EOT
    #!/bin/bash
    curl -sfL https://get.k3s.io | K3S_URL=https://k3s.example.internal:6443 K3S_TOKEN_FILE=/etc/k3s-token \
      sh -s - agent --node-label gpu-pool=t4 --node-label capacity=spot
  EOT
  )
  source_image_reference {
    publisher = "Canonical"
    offer     = "0001-com-ubuntu-server-jammy"
    sku       = "22_04-lts-gen2"
    version   = "latest"
  }
  os_disk {
    storage_account_type = "Standard_LRS"
    caching              = "ReadWrite"
  }
  network_interface {
    name    = "nic"
    primary = true
    ip_configuration {
      name      = "internal"
      primary   = true
      subnet_id = "/subscriptions/s/resourceGroups/ml/providers/Microsoft.Network/virtualNetworks/v/subnets/s"
    }
  }
}

# An Azure scale set whose instances join k3s through a Custom Script extension, not custom data.
resource "azurerm_linux_virtual_machine_scale_set" "k3s_a10" {
  name                = "k3s-a10"
  resource_group_name = "ml"
  location            = "eastus"
  sku                 = "Standard_NV36ads_A10_v5"
  instances           = 1
  admin_username      = "azureuser"
  tags                = { team = "search", project = "embed", env = "prod" }
  source_image_reference {
    publisher = "Canonical"
    offer     = "0001-com-ubuntu-server-jammy"
    sku       = "22_04-lts-gen2"
    version   = "latest"
  }
  os_disk {
    storage_account_type = "Standard_LRS"
    caching              = "ReadWrite"
  }
  network_interface {
    name    = "nic"
    primary = true
    ip_configuration {
      name      = "internal"
      primary   = true
      subnet_id = "/subscriptions/s/resourceGroups/ml/providers/Microsoft.Network/virtualNetworks/v/subnets/s"
    }
  }
}

resource "azurerm_virtual_machine_scale_set_extension" "k3s_a10" {
  name                         = "k3s-agent"
  virtual_machine_scale_set_id = azurerm_linux_virtual_machine_scale_set.k3s_a10.id
  publisher                    = "Microsoft.Azure.Extensions"
  type                         = "CustomScript"
  type_handler_version         = "2.1"
  protected_settings = jsonencode({
    commandToExecute = "curl -sfL https://get.k3s.io | INSTALL_K3S_EXEC='agent --node-label gpu-pool=a10' K3S_URL=https://k3s.example.internal:6443 K3S_TOKEN_FILE=/etc/k3s-token sh -"
  })
}
