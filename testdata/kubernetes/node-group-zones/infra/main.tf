# A regional GKE cluster whose GPU pools Terraform declares with the zones they run in; the
# workloads in ../k8s keep their replicas apart by zone (gpuguard check node-group-zones).
#
# - l4: 8 nodes of g2-standard-8 (1 L4 each), all in us-central1-a (node_locations).
# - l4-ha: 2 nodes of g2-standard-16 (1 L4 each) in each of us-central1-a, -b and -c.
# - a100: 1 node of a2-highgpu-1g in each of the region's default zones, which GKE picks: their
#   names are not known here.
provider "google" {
  project = "acme-ml"
  region  = "us-central1"
}

resource "google_container_cluster" "ml" {
  name                     = "ml"
  location                 = "us-central1"
  remove_default_node_pool = true
  initial_node_count       = 1
  resource_labels          = { team = "ml", project = "platform", env = "prod" }
}

resource "google_container_node_pool" "l4" {
  name           = "l4"
  cluster        = google_container_cluster.ml.id
  node_locations = ["us-central1-a"]
  node_count     = 8
  node_config {
    machine_type    = "g2-standard-8"
    labels          = { workload = "serve" }
    resource_labels = { team = "ml", project = "chat", env = "prod" }
  }
}

resource "google_container_node_pool" "l4_ha" {
  name           = "l4-ha"
  cluster        = google_container_cluster.ml.id
  node_locations = ["us-central1-a", "us-central1-b", "us-central1-c"]
  node_count     = 2
  node_config {
    machine_type    = "g2-standard-16"
    labels          = { workload = "serve" }
    resource_labels = { team = "ml", project = "chat", env = "prod" }
  }
}

resource "google_container_node_pool" "a100" {
  name       = "a100"
  cluster    = google_container_cluster.ml.id
  node_count = 1
  node_config {
    machine_type    = "a2-highgpu-1g"
    labels          = { workload = "train" }
    resource_labels = { team = "ml", project = "eval", env = "prod" }
  }
}
