include "root" {
  path = find_in_parent_folders()
}

terraform {
  source = "git::https://github.com/acme/infra-modules.git//gpu-nodes?ref=v1.4.0"
}

inputs = {
  instance_type = "p5.48xlarge"
}
