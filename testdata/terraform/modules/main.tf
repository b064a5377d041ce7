# Local modules two levels deep (for_each at the first level, count at the second), a provider
# passed under an alias, and registry and git sources that are noted, not followed.
provider "aws" {
  region = "us-east-1"
}

provider "aws" {
  alias  = "east2"
  region = "us-east-2"
}

locals {
  services = {
    chat  = { type = "g6e.xlarge", replicas = 2 }
    embed = { type = "g6.xlarge", replicas = 1 }
  }
}

module "serving" {
  source   = "./modules/serving"
  for_each = local.services
  name     = each.key
  gpu_type = each.value.type
  replicas = each.value.replicas
}

module "east2" {
  source   = "./modules/serving"
  name     = "batch"
  gpu_type = "g5.xlarge"
  replicas = 1
  providers = {
    aws = aws.east2
  }
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"
}

module "from_git" {
  source = "git::https://example.com/infra/gpu.git?ref=v1.2.0"
}

output "chat_ids" {
  value = module.serving["chat"].instance_ids
}
