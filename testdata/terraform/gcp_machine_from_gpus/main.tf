# Machine types known only at apply (variables without a value). GPUs that come only built into
# accelerator-optimized machines name the machine when one type carries them; with several
# candidates the resource stays unpriced and says what each would cost; a GPU that attaches to
# any N1 VM names no machine at all.
variable "machine_type" {}

provider "google" {
  region = "us-east4"
}

resource "google_container_node_pool" "mega" {
  name       = "mega"
  cluster    = "training"
  location   = "us-east4"
  node_count = 2
  node_config {
    machine_type = var.machine_type
    guest_accelerator {
      type  = "nvidia-h100-mega-80gb"
      count = 8
    }
    resource_labels = { team = "ml", project = "llm", env = "prod" }
  }
}

resource "google_compute_instance" "a100" {
  name         = "a100"
  zone         = "us-east4-c"
  machine_type = var.machine_type
  boot_disk {
    initialize_params { image = "debian-cloud/debian-12" }
  }
  network_interface { network = "default" }
  guest_accelerator {
    type  = "nvidia-tesla-a100"
    count = 2
  }
  scheduling { on_host_maintenance = "TERMINATE" }
  labels = { team = "ml", project = "llm", env = "prod" }
}

resource "google_container_node_pool" "l4" {
  name       = "l4"
  cluster    = "serving"
  location   = "us-east4"
  node_count = 1
  node_config {
    machine_type = var.machine_type
    guest_accelerator {
      type  = "nvidia-l4"
      count = 1
    }
    resource_labels = { team = "ml", project = "llm", env = "prod" }
  }
}

resource "google_compute_instance" "t4" {
  name         = "t4"
  zone         = "us-east4-c"
  machine_type = var.machine_type
  boot_disk {
    initialize_params { image = "debian-cloud/debian-12" }
  }
  network_interface { network = "default" }
  guest_accelerator {
    type  = "nvidia-tesla-t4"
    count = 1
  }
  scheduling { on_host_maintenance = "TERMINATE" }
  labels = { team = "ml", project = "llm", env = "prod" }
}
