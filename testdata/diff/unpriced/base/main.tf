provider "google" {
  region = "us-central1"
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
