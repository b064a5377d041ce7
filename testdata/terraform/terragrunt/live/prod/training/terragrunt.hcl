include "root" {
  path   = find_in_parent_folders()
  expose = true
}

locals {
  env = read_terragrunt_config(find_in_parent_folders("env.hcl")).locals.env
}

terraform {
  source = "${get_parent_terragrunt_dir("root")}/modules//gpu-nodes"
}

dependency "vpc" {
  config_path = "../vpc"
  mock_outputs = {
    private_subnet_ids = ["subnet-0a1b2c3d"]
  }
}

inputs = {
  instance_type = "p4d.24xlarge"
  node_count    = 2
  subnet_ids    = dependency.vpc.outputs.private_subnet_ids
  tags          = merge(include.root.locals.common_tags, { env = local.env })
}
