provider "aws" {
  region = "us-east-1"
}

resource "aws_spot_instance_request" "render" {
  instance_type = "g6.2xlarge"
  spot_price    = "0.50"
  tags          = { team = "graphics", project = "render", env = "dev" }
}
