# A multi-node inference server on the host's network (for its interconnect): its container
# port is a host port too, so no two of its pods share a node. The zonal pool's one g2-standard-24
# (2 L4s) would hold both 1-GPU pods as shares, but it holds one of them: GPU011 says the pool
# needs 2 nodes, a warning that the second pod stays pending, and GPU003 names the
# g2-standard-12 that holds one pod.
provider "google" {
  region = "us-central1"
}

resource "google_container_cluster" "ml" {
  name                     = "ml"
  location                 = "us-central1-a"
  remove_default_node_pool = true
  initial_node_count       = 1
  resource_labels          = { team = "ml-platform", project = "inference", env = "prod" }
}

resource "google_container_node_pool" "l4" {
  name       = "l4"
  cluster    = google_container_cluster.ml.id
  location   = "us-central1-a"
  node_count = 1
  node_config {
    machine_type    = "g2-standard-24"
    resource_labels = { team = "ml-platform", project = "inference", env = "prod" }
    guest_accelerator {
      type  = "nvidia-l4"
      count = 2
    }
  }
}

resource "kubernetes_deployment_v1" "server" {
  metadata {
    name      = "server"
    namespace = "inference"
    labels    = { team = "ml-platform", project = "inference", env = "prod" }
  }
  spec {
    replicas = 2
    template {
      metadata {}
      spec {
        node_selector = { "cloud.google.com/gke-accelerator" = "nvidia-l4" }
        host_network  = true
        container {
          name  = "server"
          image = "vllm/vllm-openai:v0.6.3"
          port {
            container_port = 8000
          }
          resources {
            requests = { cpu = "8", memory = "32Gi" }
            limits   = { "nvidia.com/gpu" = 1 }
          }
        }
      }
    }
  }
}
