# aws_instance: count, spot through instance_market_options, a CPU-only instance left out.
provider "aws" {
  region = "us-east-1"
  default_tags {
    tags = { team = "ml-platform", env = "prod" }
  }
}

resource "aws_instance" "trainer" {
  count         = 2
  instance_type = "p4d.24xlarge"
  tags          = { project = "llm", Name = "trainer-${count.index}" }
}

resource "aws_instance" "batch" {
  instance_type = "g5.xlarge"
  instance_market_options {
    market_type = "spot"
  }
}

resource "aws_instance" "bastion" {
  instance_type = "t3.micro"
}
