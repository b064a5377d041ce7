provider "aws" {
  region = "us-east-1"
}

resource "aws_instance" "api" {
  instance_type = "m7i.2xlarge"
}

resource "aws_instance" "worker" {
  instance_type = "c7i.xlarge"
}
