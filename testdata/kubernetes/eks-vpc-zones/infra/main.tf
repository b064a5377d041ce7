# An EKS cluster built with the community VPC and EKS modules, read without terraform init: the
# node groups run in the private subnets the VPC module makes, one per zone of azs, so they
# name their zones; the workloads in ../k8s keep their replicas apart by zone
# (gpuguard check eks-vpc-zones).
#
# - l4: up to 4 nodes of g6.xlarge (1 L4 each) in the private subnets of us-east-1a and -1b.
# - l4-pinned: up to 4 nodes of g6.xlarge in the first private subnet only (us-east-1a).
provider "aws" {
  region = "us-east-1"
}

module "vpc" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 5.0"

  name            = "ml"
  cidr            = "10.0.0.0/16"
  azs             = ["us-east-1a", "us-east-1b"]
  private_subnets = ["10.0.1.0/24", "10.0.2.0/24"]
  public_subnets  = ["10.0.101.0/24", "10.0.102.0/24"]

  enable_nat_gateway = true
  single_nat_gateway = true
}

module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  cluster_name = "ml"
  vpc_id       = module.vpc.vpc_id
  subnet_ids   = module.vpc.private_subnets
  tags         = { team = "ml", project = "chat", env = "prod" }

  eks_managed_node_groups = {
    l4 = {
      instance_types = ["g6.xlarge"]
      ami_type       = "AL2_x86_64_GPU"
      min_size       = 1
      max_size       = 4
      desired_size   = 4
      labels         = { pool = "l4" }
    }
    l4-pinned = {
      instance_types = ["g6.xlarge"]
      ami_type       = "AL2_x86_64_GPU"
      subnet_ids     = [module.vpc.private_subnets[0]]
      min_size       = 1
      max_size       = 4
      desired_size   = 4
      labels         = { pool = "l4-pinned" }
    }
  }
}
