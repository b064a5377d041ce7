# helm_release: a chart in the repository is rendered with the release's values (values
# documents, then set blocks) and its workloads priced; the chart directory is this release's
# input, not counted again as a chart. A chart from a remote repository whose values ask for GPUs
# is a warning: gpuguard does not download charts.

resource "helm_release" "llm" {
  name      = "chat"
  namespace = "serving"
  chart     = "${path.module}/charts/llm"

  values = [yamlencode({
    replicaCount = 2
    instanceType = "g6.xlarge"
  })]

  set {
    name  = "resources.limits.nvidia\\.com/gpu"
    value = "1"
  }
}

resource "helm_release" "remote" {
  name       = "vllm"
  repository = "https://vllm-project.github.io/production-stack"
  chart      = "vllm-stack"
  values = [<<-EOT
    servingEngineSpec:
      modelSpec:
        - name: llama
          requestGPU: 1
          resources:
            limits:
              nvidia.com/gpu: 1
  EOT
  ]
}

resource "helm_release" "ingress" {
  name       = "ingress-nginx"
  repository = "https://kubernetes.github.io/ingress-nginx"
  chart      = "ingress-nginx"
}
