provider "aws" {
  region = "us-east-1"
}

resource "aws_instance" "api" {
  instance_type = "m7i.large"
}
