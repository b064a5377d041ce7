provider "aws" {
  region = "us-east-1"
}

resource "aws_instance" "broken" {
  instance_type = "g5.xlarge"
  tags = {
    team = "ml"
