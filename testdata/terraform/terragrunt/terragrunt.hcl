# The root configuration every unit includes: it deploys nothing itself.
locals {
  region = "us-east-1"
  common_tags = {
    team    = "ml-platform"
    project = "llm"
  }
}

remote_state {
  backend = "s3"
  config = {
    bucket = "acme-tfstate"
    key    = "${path_relative_to_include()}/terraform.tfstate"
    region = "us-east-1"
  }
}

# Every unit's module gets its provider from here.
generate "provider" {
  path      = "provider.tf"
  if_exists = "overwrite_terragrunt"
  contents  = <<EOF
provider "aws" {
  region = "${local.region}"
}
EOF
}

terraform {
  extra_arguments "common_vars" {
    commands           = get_terraform_commands_that_need_vars()
    optional_var_files = ["${get_parent_terragrunt_dir()}/common.tfvars"]
  }
}

inputs = {
  tags = local.common_tags
}
