# A GKE cluster whose GPU node pools Terraform declares; the workloads that run on them are
# plain manifests in ../k8s, checked together (gpuguard check terraform-node-groups).
#
# - l4: 3 nodes of g2-standard-24 (2 L4 each) on spot, labelled workload = serve and tainted
#   workload=serve:NoSchedule, which keeps off pods that do not tolerate it.
# - a100: 1 node of a2-highgpu-1g, autoscaled up to 4, labelled workload = train and tainted
#   nvidia.com/gpu=present:NoSchedule, which every pod that requests nvidia.com/gpu tolerates
#   (the ExtendedResourceToleration admission controller adds the toleration).
provider "google" {
  project = "acme-ml"
  region  = "europe-west4"
}

resource "google_container_cluster" "ml" {
  name                     = "ml"
  location                 = "europe-west4-a"
  remove_default_node_pool = true
  initial_node_count       = 1
  resource_labels          = { team = "ml", project = "platform", env = "prod" }
}

resource "google_container_node_pool" "l4" {
  name       = "l4"
  cluster    = google_container_cluster.ml.id
  node_count = 3
  node_config {
    machine_type    = "g2-standard-24"
    spot            = true
    labels          = { workload = "serve" }
    resource_labels = { team = "ml", project = "chat", env = "prod" }
    taint {
      key    = "workload"
      value  = "serve"
      effect = "NO_SCHEDULE"
    }
  }
}

resource "google_container_node_pool" "a100" {
  name    = "a100"
  cluster = google_container_cluster.ml.id
  autoscaling {
    min_node_count = 1
    max_node_count = 4
  }
  node_config {
    machine_type    = "a2-highgpu-1g"
    labels          = { workload = "train" }
    resource_labels = { team = "ml", project = "train", env = "prod" }
    taint {
      key    = "nvidia.com/gpu"
      value  = "present"
      effect = "NO_SCHEDULE"
    }
  }
}
