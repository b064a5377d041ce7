# A namespace's GPU quota for serving pods, applied by Terraform beside the workload it bounds:
# the API server admits pods of the serving priority class while their GPU requests stay within
# 4, so the HPA's 30 replicas never run. The Deployment names no priority class: it gets the
# global default's, serving.
resource "kubernetes_priority_class_v1" "serving" {
  metadata {
    name = "serving"
  }
  value          = 100000
  global_default = true
}

resource "kubernetes_resource_quota_v1" "gpus" {
  metadata {
    name      = "gpus"
    namespace = "ml" # quota
  }
  spec {
    hard = {
      "requests.nvidia.com/gpu" = 4
    }
    scope_selector {
      match_expression {
        scope_name = "PriorityClass"
        operator   = "In"
        values     = ["serving", "interactive"]
      }
    }
  }
}

resource "kubernetes_deployment_v1" "serve" {
  metadata {
    name      = "serve"
    namespace = "ml"
  }
  spec {
    replicas = 2
    selector { match_labels = { app = "serve" } }
    template {
      metadata { labels = { app = "serve" } }
      spec {
        # priority class
        node_selector = { "node.kubernetes.io/instance-type" = "g6.xlarge" }
        container {
          name  = "c"
          image = "x"
          resources {
            requests = { cpu = "2" }
            limits   = { "nvidia.com/gpu" = 1 }
          }
        }
      }
    }
  }
}

resource "kubernetes_horizontal_pod_autoscaler_v2" "serve" {
  metadata {
    name      = "serve"
    namespace = "ml"
  }
  spec {
    min_replicas = 2
    max_replicas = 30
    scale_target_ref {
      api_version = "apps/v1"
      kind        = "Deployment"
      name        = "serve"
    }
  }
}
