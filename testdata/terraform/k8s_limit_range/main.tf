# A namespace's LimitRange, applied by Terraform beside the workload it governs. It caps each
# container at 1 GPU and sets no default, so the API server gives its max, 1 GPU, to every
# container that names none: the Deployment's log shipper too. Each pod then requests 2 GPUs,
# and the g6.12xlarge (4 L4s) holds 2 pods, not 4. Its default requests (4 CPUs, 16Gi) fill in
# what the containers leave out.
resource "kubernetes_limit_range_v1" "gpu" {
  metadata {
    name      = "gpu"
    namespace = "speech"
  }
  spec {
    limit {
      type = "Container"
      max = {
        "nvidia.com/gpu" = "1"
      }
      default_request = {
        cpu    = "4"
        memory = "16Gi"
      }
    }
    limit {
      type = "Pod"
      max = {
        memory = "96Gi"
      }
    }
  }
}

resource "kubernetes_deployment_v1" "transcribe" {
  metadata {
    name      = "transcribe"
    namespace = "speech"
    labels    = { team = "speech", project = "asr", env = "prod" }
  }
  spec {
    replicas = 4
    selector { match_labels = { app = "transcribe" } }
    template {
      metadata { labels = { app = "transcribe" } }
      spec {
        node_selector = { "node.kubernetes.io/instance-type" = "g6.12xlarge" }
        container {
          name  = "whisper"
          image = "ghcr.io/example/whisper:1.4"
          resources {
            limits = { "nvidia.com/gpu" = 1, memory = "24Gi" }
          }
        }
        container {
          name  = "log-shipper"
          image = "fluent/fluent-bit:3.1"
        }
      }
    }
  }
}
