# A Karpenter NodePool, an HPA and the workloads they act on, each declared by its own Terraform
# resource: gpuguard reads the root module's Kubernetes objects together, as a manifest stream,
# so the pool prices the pods that tolerate its taint and the HPA's floor sets the replicas.
provider "kubernetes" {}

resource "kubernetes_manifest" "gpu_pool" {
  manifest = {
    apiVersion = "karpenter.sh/v1"
    kind       = "NodePool"
    metadata   = { name = "gpu" }
    spec = {
      template = {
        spec = {
          requirements = [
            { key = "node.kubernetes.io/instance-type", operator = "In", values = ["g6e.2xlarge", "g6e.4xlarge"] },
            { key = "karpenter.sh/capacity-type", operator = "In", values = ["on-demand"] },
          ]
          taints       = [{ key = "nvidia.com/gpu", value = "true", effect = "NoSchedule" }]
          nodeClassRef = { group = "karpenter.k8s.aws", kind = "EC2NodeClass", name = "default" }
        }
      }
    }
  }
}

resource "kubernetes_manifest" "chat" {
  manifest = {
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "chat", namespace = "serving", labels = { team = "assistants", project = "chat", env = "prod" } }
    spec = {
      replicas = 1
      template = {
        spec = {
          tolerations = [{ key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" }]
          containers = [{
            name      = "vllm"
            image     = "vllm/vllm-openai:v0.6.3"
            resources = { limits = { "nvidia.com/gpu" = 1 } }
          }]
        }
      }
    }
  }
}

resource "kubernetes_manifest" "chat_hpa" {
  manifest = {
    apiVersion = "autoscaling/v2"
    kind       = "HorizontalPodAutoscaler"
    metadata   = { name = "chat", namespace = "serving" }
    spec = {
      scaleTargetRef = { apiVersion = "apps/v1", kind = "Deployment", name = "chat" }
      minReplicas    = 3
      maxReplicas    = 10
    }
  }
}

# A typed workload takes the pool too.
resource "kubernetes_deployment_v1" "embed" {
  metadata {
    name      = "embed"
    namespace = "search"
    labels    = { team = "search", project = "embed", env = "prod" }
  }
  spec {
    replicas = 2
    template {
      metadata {}
      spec {
        toleration {
          key      = "nvidia.com/gpu"
          operator = "Exists"
          effect   = "NoSchedule"
        }
        container {
          name  = "embed"
          image = "embed:1"
          resources {
            limits = { "nvidia.com/gpu" = 1 }
          }
        }
      }
    }
  }
}
