provider "google" {
  region = "us-central1"
}

# The machine type comes from a variable nobody set in this pull request.
variable "trainer_machine_type" {
  type = string
}

resource "google_compute_instance" "inference" {
  name         = "inference"
  zone         = "us-central1-a"
  machine_type = "g2-standard-8"
  labels       = { team = "search", project = "ranker", env = "prod" }
  boot_disk {}
  network_interface {}
  scheduling {
    on_host_maintenance = "TERMINATE"
  }
}

resource "google_compute_instance" "trainer" {
  name         = "trainer"
  zone         = "us-central1-a"
  machine_type = var.trainer_machine_type
  labels       = { team = "search", project = "ranker", env = "prod" }
  # One L4 comes with five G2 machine types: the GPU does not say which.
  guest_accelerator {
    type  = "nvidia-l4"
    count = 1
  }
  boot_disk {}
  network_interface {}
  scheduling {
    on_host_maintenance = "TERMINATE"
  }
}

# A machine type newer than the catalog.
resource "google_compute_instance" "next_gen" {
  name         = "next-gen"
  zone         = "us-central1-a"
  machine_type = "a5-highgpu-8g"
  labels       = { team = "search", project = "ranker", env = "prod" }
  boot_disk {}
  network_interface {}
  scheduling {
    on_host_maintenance = "TERMINATE"
  }
}
