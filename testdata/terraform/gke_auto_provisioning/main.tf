# A GKE cluster with node auto-provisioning: GKE may create node pools with L4s or H100s for pods
# that wait for them, within the cluster's limits, which also bound the pools declared here.

provider "google" {
  project = "ml-prod"
  region  = "us-central1"
}

locals {
  labels = { team = "ml", project = "llm", env = "prod" }
  gpu_limits = {
    "nvidia-l4"        = 16
    "nvidia-h100-80gb" = 8
    "nvidia-tesla-t4"  = 4
  }
}

resource "google_container_cluster" "ml" {
  name                     = "ml"
  location                 = "us-central1"
  node_locations           = ["us-central1-a", "us-central1-b"]
  initial_node_count       = 1
  remove_default_node_pool = true
  resource_labels          = local.labels

  cluster_autoscaling {
    enabled             = true
    autoscaling_profile = "OPTIMIZE_UTILIZATION"
    resource_limits {
      resource_type = "cpu"
      minimum       = 4
      maximum       = 1024
    }
    resource_limits {
      resource_type = "memory"
      minimum       = 16
      maximum       = 4096
    }
    dynamic "resource_limits" {
      for_each = local.gpu_limits
      content {
        resource_type = resource_limits.key
        minimum       = resource_limits.key == "nvidia-l4" ? 2 : 0
        maximum       = resource_limits.value
      }
    }
  }

  # Serving: 2-GPU L4 nodes, up to 5 a zone (20 GPUs), but the cluster allows 16 L4s.
  node_pool {
    name = "l4-serving"
    autoscaling {
      min_node_count = 1
      max_node_count = 5
    }
    node_config {
      machine_type    = "g2-standard-24"
      resource_labels = local.labels
    }
  }
}

# Batch inference on T4s, attached to N1 VMs: up to 3 nodes a zone of 2 T4s each.
resource "google_container_node_pool" "t4_batch" {
  name     = "t4-batch"
  cluster  = google_container_cluster.ml.id
  location = "us-central1"
  autoscaling {
    min_node_count = 0
    max_node_count = 3
  }
  node_config {
    machine_type    = "n1-standard-8"
    spot            = true
    resource_labels = local.labels
    guest_accelerator {
      type  = "nvidia-tesla-t4"
      count = 2
    }
  }
}

# No GPU limits: the autoscaler may not add GPUs this cluster's pools do not have.
resource "google_container_cluster" "cpu_only" {
  name     = "cpu-only"
  location = "us-central1-a"
  cluster_autoscaling {
    enabled = true
    resource_limits {
      resource_type = "cpu"
      maximum       = 64
    }
    resource_limits {
      resource_type = "memory"
      maximum       = 256
    }
  }
}

# A fine-tuning job's workers applied to the cluster: no pool carries H100s, so they run on
# the nodes auto-provisioning creates, two pods of 4 GPUs within the cluster's 8 H100s.
provider "kubernetes" {
  host = "https://${google_container_cluster.ml.endpoint}"
}

resource "kubernetes_manifest" "finetune" {
  manifest = {
    apiVersion = "apps/v1"
    kind       = "StatefulSet"
    metadata   = { name = "finetune", namespace = "ml", labels = local.labels }
    spec = {
      replicas    = 2
      serviceName = "finetune"
      selector    = { matchLabels = { app = "finetune" } }
      template = {
        metadata = { labels = { app = "finetune" } }
        spec = {
          nodeSelector = { "cloud.google.com/gke-accelerator" = "nvidia-h100-80gb" }
          containers = [{
            name      = "worker"
            image     = "ghcr.io/example/finetune:2.1"
            resources = { limits = { "nvidia.com/gpu" = "4" } }
          }]
        }
      }
    }
  }
}
