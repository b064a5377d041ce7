provider "aws" {
  region = "us-east-1"
}

resource "aws_instance" "fine" {
  instance_type = "g5.xlarge"
}
