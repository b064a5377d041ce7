# The root configuration every unit includes: it deploys nothing itself.
locals {
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

inputs = {
  region = "us-east-1"
  tags   = local.common_tags
}
