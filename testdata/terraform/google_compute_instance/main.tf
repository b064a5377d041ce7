# N1 with attached T4s (VM + accelerators, sustained-use discount), an A2 whose
# guest_accelerator block must not be priced twice, and a spot G2 in a zone. The A2 sets no
# scheduling.on_host_maintenance, which Compute Engine then defaults to MIGRATE and refuses for
# a GPU VM: a warning says terraform apply would fail.
provider "google" {
  project = "ml"
  region  = "us-central1"
}

resource "google_compute_instance" "n1_t4" {
  name         = "n1-t4"
  machine_type = "n1-standard-8"
  zone         = "us-central1-a"
  guest_accelerator {
    type  = "nvidia-tesla-t4"
    count = 2
  }
  scheduling {
    on_host_maintenance = "TERMINATE"
  }
  labels = { team = "vision", project = "detector", env = "prod" }
}

resource "google_compute_instance" "a2" {
  name         = "a2"
  machine_type = "a2-highgpu-1g"
  zone         = "europe-west4-a"
  guest_accelerator {
    type  = "projects/ml/zones/europe-west4-a/acceleratorTypes/nvidia-tesla-a100"
    count = 1
  }
}

resource "google_compute_instance" "g2_spot" {
  name         = "g2-spot"
  machine_type = "g2-standard-8"
  scheduling {
    provisioning_model = "SPOT"
    preemptible        = false
  }
}

resource "google_compute_instance" "web" {
  name         = "web"
  machine_type = "e2-small"
}

# Instances made from an instance template: the template's machine and GPUs, and what the
# instance sets itself (a bigger machine, spot) over them.
resource "google_compute_instance_template" "t4" {
  name_prefix  = "t4-"
  machine_type = "n1-standard-8"
  guest_accelerator {
    type  = "nvidia-tesla-t4"
    count = 1
  }
  scheduling {
    on_host_maintenance = "TERMINATE"
  }
  labels = { team = "ml", project = "batch", env = "prod" }
  disk {
    source_image = "debian-cloud/debian-12"
  }
  network_interface {
    network = "default"
  }
}

resource "google_compute_instance_from_template" "worker" {
  name                     = "worker"
  zone                     = "us-central1-a"
  source_instance_template = google_compute_instance_template.t4.self_link_unique
}

resource "google_compute_instance_from_template" "bigger_spot" {
  name                     = "bigger"
  zone                     = "us-central1-b"
  source_instance_template = google_compute_instance_template.t4.self_link_unique
  machine_type             = "n1-standard-16"
  scheduling {
    provisioning_model = "SPOT"
    preemptible        = true
    automatic_restart  = false
  }
}

# Compute Engine retired the K80 on 2024-05-01: unpriced with that reason, not "not in the catalog".
resource "google_compute_instance" "k80" {
  name         = "k80"
  machine_type = "n1-standard-8"
  zone         = "us-central1-a"
  guest_accelerator {
    type  = "nvidia-tesla-k80"
    count = 2
  }
  scheduling {
    on_host_maintenance = "TERMINATE"
  }
  labels = { team = "ml", project = "legacy", env = "prod" }
  boot_disk {
    initialize_params {
      image = "debian-cloud/debian-12"
    }
  }
  network_interface {
    network = "default"
  }
}
