# A regional cluster: a pool without node_locations runs node_count nodes in each of GKE's
# three default zones; a pool with two node_locations runs node_count in each of those.
provider "google" {
  project = "ml"
}

resource "google_container_cluster" "ml" {
  name                     = "ml"
  location                 = "us-central1"
  remove_default_node_pool = true
  initial_node_count       = 1
  resource_labels          = { team = "ml-platform" }
}

resource "google_container_node_pool" "a100" {
  name       = "a100"
  cluster    = google_container_cluster.ml.id
  node_count = 1
  node_config {
    machine_type = "a2-highgpu-2g"
    spot         = true
    guest_accelerator {
      type  = "nvidia-tesla-a100"
      count = 2
    }
  }
}

resource "google_container_node_pool" "l4" {
  name           = "l4"
  cluster        = google_container_cluster.ml.name
  location       = "us-central1"
  node_locations = ["us-central1-a", "us-central1-b"]
  autoscaling {
    min_node_count = 2
    max_node_count = 10
  }
  node_config {
    machine_type    = "g2-standard-8"
    resource_labels = { project = "chat", env = "prod" }
  }
}
