# Kubernetes objects declared through Terraform's Kubernetes provider are read like manifests.
provider "kubernetes" {}

locals {
  namespace = "serving"
}

resource "kubernetes_namespace_v1" "ml" {
  metadata {
    name = "ml"
  }
}

# gpuguard:ignore GPU005 reason="labels are set by the platform's admission webhook"
resource "kubernetes_manifest" "chat" {
  manifest = {
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata = {
      name      = "chat"
      namespace = local.namespace
    }
    spec = {
      replicas = 2
      template = {
        spec = {
          nodeSelector = { "node.kubernetes.io/instance-type" = "g6e.2xlarge" }
          containers = [{
            name  = "vllm"
            image = "vllm/vllm-openai:v0.6.3"
            resources = { limits = { "nvidia.com/gpu" = 1 } }
          }]
        }
      }
    }
  }
}

# The namespace is known only after apply: read as absent (the default namespace). No node is
# named, so the Job is unpriced with the reason.
resource "kubernetes_manifest" "finetune" {
  manifest = {
    apiVersion = "batch/v1"
    kind       = "Job"
    metadata = {
      name      = "finetune"
      namespace = kubernetes_namespace_v1.ml.metadata[0].name
    }
    spec = {
      template = {
        spec = {
          restartPolicy = "Never"
          containers = [{
            name      = "train"
            image     = "trainer:1"
            resources = { limits = { "nvidia.com/gpu" = 4 } }
          }]
        }
      }
    }
  }
}

# Not a GPU workload.
resource "kubernetes_manifest" "config" {
  manifest = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "settings", namespace = "serving" }
    data       = { mode = "fast" }
  }
}

# Typed workloads are read too: blocks become Kubernetes fields (container -> containers), the
# provider's string replicas a number.
resource "kubernetes_deployment_v1" "typed" {
  metadata {
    name      = "embed"
    namespace = "serving"
    labels    = { team = "search", project = "embed", env = "prod" }
  }
  spec {
    replicas = "2"
    template {
      metadata {}
      spec {
        node_selector = { "node.kubernetes.io/instance-type" = "g5.xlarge" }
        toleration {
          key      = "nvidia.com/gpu"
          operator = "Exists"
          effect   = "NoSchedule"
        }
        container {
          name  = "server"
          image = "server:1"
          resources {
            limits = { "nvidia.com/gpu" = 1 }
          }
        }
      }
    }
  }
}

resource "kubernetes_cron_job_v1" "nightly" {
  metadata {
    name = "nightly"
  }
  spec {
    schedule = "0 2 * * *"
    job_template {
      metadata {}
      spec {
        template {
          metadata {}
          spec {
            node_selector = { "node.kubernetes.io/instance-type" = "g6.xlarge" }
            container {
              name  = "batch"
              image = "batch:1"
              resources {
                limits = { "nvidia.com/gpu" = "1" }
              }
            }
          }
        }
      }
    }
  }
}
