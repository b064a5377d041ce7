# The head of the huge fixture: 100 nodes removed, 1,000 moved to the next type, 500 added.
provider "aws" {
  region = "us-east-1"
}

locals {
  types = ["g5.xlarge", "g6.xlarge", "g6e.xlarge", "g5.2xlarge", "g4dn.xlarge"]
  nodes = { for i in concat(range(100, 1100), range(1100, 1600)) : format("node-%04d", i) => local.types[(i + 1) % 5] }
}

resource "aws_instance" "fleet" {
  for_each      = local.nodes
  instance_type = each.value
}
