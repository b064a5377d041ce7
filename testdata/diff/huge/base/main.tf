# A fleet big enough that the pull-request comment must collapse detail to stay under GitHub's
# 65,536-character limit: 1,100 instances in the base, 1,500 in the head, 1,000 of them changed.
provider "aws" {
  region = "us-east-1"
}

locals {
  types = ["g5.xlarge", "g6.xlarge", "g6e.xlarge", "g5.2xlarge", "g4dn.xlarge"]
  nodes = { for i in concat(range(0, 1000), range(1000, 1100)) : format("node-%04d", i) => local.types[i % 5] }
}

resource "aws_instance" "fleet" {
  for_each      = local.nodes
  instance_type = each.value
}
