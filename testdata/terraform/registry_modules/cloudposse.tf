# Cloud Posse's node group module and the label it names and tags with, as a Cloud Posse
# configuration writes them (module.this, passed on as context). The module's default AMI type,
# AL2_x86_64, has no NVIDIA driver: GPU012.

module "this" {
  source    = "cloudposse/label/null"
  version   = "0.25.0"
  namespace = "acme"
  stage     = "prod"
  tags      = { team = "ml", project = "search", env = "prod" }
}

module "rerank_nodes" {
  source         = "cloudposse/eks-node-group/aws"
  version        = "3.1.0"
  name           = "rerank"
  cluster_name   = "ml"
  subnet_ids     = ["subnet-0a1b2c3d"]
  instance_types = ["g6.xlarge"]
  desired_size   = 2
  min_size       = 1
  max_size       = 4
  context        = module.this.context
}
