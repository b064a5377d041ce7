# A registry module and a git module, as `terraform init` leaves them: gpuguard follows the
# modules listed in .terraform/modules/modules.json.
provider "aws" {
  region = "us-east-1"
}

# gpuguard:ignore GPU005 reason="tags come from the cluster's default_tags"
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  cluster_name = "ml"
  eks_managed_node_groups = {
    gpu = {
      instance_types = ["g6.xlarge"]
      desired_size   = 3
    }
    system = {
      instance_types = ["m5.large"]
      desired_size   = 2
    }
  }
}

# The configuration moved to ref=v2 after terraform init downloaded v1: not followed.
module "stale" {
  source = "git::https://example.com/infra/gpu.git?ref=v2"
}
