# Registry modules read without terraform init, through gpuguard's stand-ins: the EKS module's
# managed and self-managed node groups, its managed node group submodule from GitHub, and the
# GKE module's node pools, and Cloud Posse's node group (cloudposse.tf). A module gpuguard has
# no stand-in for stays a warning.

provider "aws" {
  region = "us-east-1"
}

variable "train_type" {
  default = "p4d.24xlarge"
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  cluster_name = "ml"
  tags         = { team = "ml", project = "llm", env = "prod" }

  eks_managed_node_group_defaults = {
    ami_type = "AL2_x86_64_GPU"
  }

  eks_managed_node_groups = {
    train = {
      instance_types = [var.train_type]
      min_size       = 1
      max_size       = 4
      desired_size   = 2
    }
    batch = {
      instance_types = ["g5.xlarge"]
      capacity_type  = "SPOT"
    }
    system = {
      instance_types = ["m6i.large"]
    }
  }

  self_managed_node_groups = {
    inference = {
      instance_type = "g6.xlarge"
      desired_size  = 3
    }
    # Attribute-based selection: one L4, spot only; priced at the cheapest type that meets it.
    flexible = {
      desired_size               = 2
      use_mixed_instances_policy = true
      mixed_instances_policy = {
        instances_distribution = { on_demand_percentage_above_base_capacity = 0 }
      }
      instance_requirements = {
        vcpu_count        = { min = 4 }
        memory_mib        = { min = 16384 }
        accelerator_count = { min = 1, max = 1 }
        accelerator_names = ["l4"]
      }
    }
  }
}

module "extra_pool" {
  source = "git::https://github.com/terraform-aws-modules/terraform-aws-eks.git//modules/eks-managed-node-group?ref=v20.31.6"

  name           = "l40s"
  cluster_name   = "ml"
  instance_types = ["g6e.xlarge"]
  tags           = { team = "search", project = "rank", env = "prod" }
}

module "gke" {
  source     = "terraform-google-modules/kubernetes-engine/google//modules/private-cluster"
  version    = "~> 33.0"
  project_id = "ml-prod"
  name       = "ml"
  region     = "us-central1"
  zones      = ["us-central1-a", "us-central1-b"]
  node_pools = [
    {
      name         = "a100"
      machine_type = "a2-highgpu-1g"
      min_count    = 1
      max_count    = 4
      spot         = true
    },
    {
      name              = "t4"
      machine_type      = "n1-standard-8"
      accelerator_type  = "nvidia-tesla-t4"
      accelerator_count = 2
      autoscaling       = false
      node_count        = 2
    },
  ]
  node_pools_resource_labels = {
    all = { team = "ml", project = "llm", env = "prod" }
  }
  cluster_resource_labels = { team = "ml", project = "llm", env = "prod" }
  # Node auto-provisioning: at most 6 A100s in the cluster, the a100 pool's included.
  cluster_autoscaling = {
    enabled             = true
    autoscaling_profile = "OPTIMIZE_UTILIZATION"
    max_cpu_cores       = 256
    max_memory_gb       = 1024
    gpu_resources       = [{ resource_type = "nvidia-tesla-a100", minimum = 0, maximum = 6 }]
  }
}

# Read through its stand-in, which models the subnets alone: no warning.
module "vpc" {
  source = "terraform-aws-modules/vpc/aws"
  name   = "ml"
}

# A module gpuguard has no stand-in for: the warning names the GPU type its inputs ask for.
module "inference_nodes" {
  source         = "umotif-public/eks-node-group/aws"
  version        = "5.0.0"
  instance_types = ["g6e.2xlarge"]
  desired_size   = 2
}

module "devbox" {
  source               = "terraform-aws-modules/ec2-instance/aws"
  version              = "~> 5.0"
  name                 = "devbox"
  instance_type        = "g6.2xlarge"
  create_spot_instance = true
  tags                 = { team = "research", project = "evals", env = "dev" }
}

module "batch" {
  source = "terraform-aws-modules/batch/aws"
  tags   = { team = "ml", project = "embeddings", env = "prod" }
  compute_environments = {
    gpu = {
      name_prefix = "gpu-spot"
      compute_resources = {
        type           = "SPOT"
        min_vcpus      = 0
        max_vcpus      = 128
        desired_vcpus  = 8
        instance_types = ["g5.2xlarge"]
        subnets        = ["subnet-0a1b2c3d"]
      }
    }
  }
}
