module "b" {
  source = "../b"
}

resource "aws_instance" "a" {
  instance_type = "g5.xlarge"
}

provider "aws" {
  region = "us-east-1"
}
