# The NVIDIA device plugin installed from its Helm chart, time-slicing each GPU 4 ways. The chart
# is not downloaded: its values are read, and the Deployment below runs on the node group that
# shares its GPUs. Each of the 8 replicas asks for one nvidia.com/gpu, a quarter of a GPU.

provider "aws" {
  region = "us-east-1"
}

resource "aws_eks_node_group" "gpu" {
  cluster_name    = "ml"
  node_group_name = "gpu"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-node"
  subnet_ids      = ["subnet-1"]
  instance_types  = ["g5.2xlarge"]
  ami_type        = "AL2023_x86_64_NVIDIA"
  labels = {
    team    = "search"
    project = "embeddings"
    env     = "prod"
  }
  tags = {
    team    = "search"
    project = "embeddings"
    env     = "prod"
  }

  scaling_config {
    desired_size = 2
    min_size     = 2
    max_size     = 2
  }
}

resource "helm_release" "nvidia_device_plugin" {
  name       = "nvdp"
  namespace  = "nvidia"
  repository = "https://nvidia.github.io/k8s-device-plugin"
  chart      = "nvidia-device-plugin"
  version    = "0.17.1"

  values = [<<-EOT
    config:
      map:
        default: |-
          version: v1
          flags:
            migStrategy: none
          sharing:
            timeSlicing:
              resources:
              - name: nvidia.com/gpu
                replicas: 4
  EOT
  ]
}

resource "kubernetes_deployment_v1" "embedder" {
  metadata {
    name      = "embedder"
    namespace = "search"
    labels = {
      team    = "search"
      project = "embeddings"
      env     = "prod"
    }
  }
  spec {
    replicas = 8
    template {
      metadata {}
      spec {
        node_selector = { "eks.amazonaws.com/nodegroup" = aws_eks_node_group.gpu.node_group_name }
        container {
          name  = "embedder"
          image = "ghcr.io/example/embedder:1.4"
          resources {
            limits = { "nvidia.com/gpu" = 1 }
          }
        }
      }
    }
  }
}
