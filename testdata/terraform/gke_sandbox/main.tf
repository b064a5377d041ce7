# GKE Sandbox: the sandboxed pool's nodes carry sandbox.gke.io/runtime=gvisor as a label and a
# NoSchedule taint. Pods under GKE's RuntimeClass gvisor (not declared here: GKE creates it)
# select and tolerate them, so code-runner runs on the sandboxed pool; chat names no class, so
# the taint keeps it off that pool and it runs on the plain one.
provider "google" {
  project = "ml"
}

resource "google_container_cluster" "ml" {
  name                     = "ml"
  location                 = "us-central1-a"
  remove_default_node_pool = true
  initial_node_count       = 1
  resource_labels          = { team = "ml-platform", project = "assistant", env = "prod" }
}

resource "google_container_node_pool" "sandboxed" {
  name       = "sandboxed"
  cluster    = google_container_cluster.ml.name
  location   = "us-central1-a"
  node_count = 2
  node_config {
    machine_type = "g2-standard-8"
    image_type   = "COS_CONTAINERD"
    sandbox_config {
      sandbox_type = "gvisor"
    }
  }
}

resource "google_container_node_pool" "plain" {
  name       = "plain"
  cluster    = google_container_cluster.ml.name
  location   = "us-central1-a"
  node_count = 1
  node_config {
    machine_type = "g2-standard-24"
  }
}

resource "kubernetes_deployment_v1" "code_runner" {
  metadata {
    name      = "code-runner"
    namespace = "agents"
    labels    = { team = "ml-platform", project = "agents", env = "prod" }
  }
  spec {
    replicas = 2
    template {
      metadata {}
      spec {
        runtime_class_name = "gvisor"
        node_selector      = { "cloud.google.com/gke-accelerator" = "nvidia-l4" }
        container {
          name  = "runner"
          image = "ghcr.io/example/runner:1.4"
          resources {
            requests = { cpu = "4", memory = "16Gi" }
            limits   = { "nvidia.com/gpu" = 1 }
          }
        }
      }
    }
  }
}

resource "kubernetes_deployment_v1" "chat" {
  metadata {
    name      = "chat"
    namespace = "assistant"
    labels    = { team = "ml-platform", project = "assistant", env = "prod" }
  }
  spec {
    replicas = 2
    template {
      metadata {}
      spec {
        node_selector = { "cloud.google.com/gke-accelerator" = "nvidia-l4" }
        container {
          name  = "server"
          image = "vllm/vllm-openai:v0.6.3"
          resources {
            requests = { cpu = "8", memory = "32Gi" }
            limits   = { "nvidia.com/gpu" = 1 }
          }
        }
      }
    }
  }
}
