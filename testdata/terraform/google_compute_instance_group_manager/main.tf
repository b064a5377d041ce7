provider "google" {
  project = "ml"
  region  = "us-east4"
}

resource "google_compute_instance_template" "l4" {
  name_prefix  = "l4-"
  machine_type = "g2-standard-4"
  scheduling {
    preemptible = true
  }
  labels = { team = "serving" }
}

resource "google_compute_instance_group_manager" "serving" {
  name               = "serving"
  zone               = "us-east4-a"
  base_instance_name = "serving"
  target_size        = 3
  version {
    instance_template = google_compute_instance_template.l4.self_link
  }
}
