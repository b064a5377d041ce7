provider "google" {
  project = "acme-ml"
  region  = "us-central1"
}

resource "google_compute_reservation" "a100" {
  name = "a100-serving"
  zone = "us-central1-a"

  specific_reservation_required = true

  specific_reservation {
    count = 3
    instance_properties {
      machine_type = "a2-highgpu-1g"
    }
  }
}

resource "google_compute_instance" "server" {
  name         = "server"
  machine_type = "a2-highgpu-1g"
  zone         = "us-central1-a"

  boot_disk {
    initialize_params {
      image = "debian-cloud/debian-12"
    }
  }

  network_interface {
    network = "default"
  }

  scheduling {
    on_host_maintenance = "TERMINATE"
  }

  reservation_affinity {
    type = "SPECIFIC_RESERVATION"
    specific_reservation {
      key    = "compute.googleapis.com/reservation-name"
      values = [google_compute_reservation.a100.name]
    }
  }
}

resource "google_compute_reservation" "t4" {
  name = "t4-batch"
  zone = "us-central1-b"

  specific_reservation {
    count = 2
    instance_properties {
      machine_type = "n1-standard-8"
      guest_accelerators {
        accelerator_type  = "nvidia-tesla-t4"
        accelerator_count = 1
      }
    }
  }
}
