provider "google" {
  project = "acme-ml"
  region  = "us-central1"
}

resource "google_container_cluster" "research" {
  name                     = "research"
  location                 = "us-central1"
  remove_default_node_pool = true
  initial_node_count       = 1
  resource_labels          = { team = "research", env = "dev" }
}

# One A100 40GB node per zone for notebooks; GKE spreads a regional pool over three zones.
resource "google_container_node_pool" "notebooks" {
  name       = "notebooks"
  cluster    = google_container_cluster.research.id
  node_count = 1
  node_config {
    machine_type    = "a2-highgpu-1g"
    resource_labels = { project = "notebooks" }
  }
}
