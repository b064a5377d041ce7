include "root" {
  path           = find_in_parent_folders()
  merge_strategy = "deep"
}

locals {
  env = read_terragrunt_config("../../dev.hcl").locals.env
}

terraform {
  source = "../../../modules//gpu-nodes"
}

inputs = {
  instance_type = "g5.2xlarge"
  capacity_type = "SPOT"
  subnet_ids    = ["subnet-dev"]
  # Deep merge: the root's team and project stay, env is added.
  tags = {
    env = local.env
  }
}
