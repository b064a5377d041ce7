provider "aws" {
  region = "us-east-1"
}

# The config's profiles map wins over the tag.
resource "aws_instance" "by_config" {
  instance_type = "g6.xlarge"
  tags          = { gpuguard-profile = "profiles/broken.yaml" }
}

resource "aws_instance" "by_tag" {
  instance_type = "g6e.xlarge"
  tags          = { gpuguard-profile = "profiles/small.yaml" }
}

resource "aws_instance" "broken_profile" {
  instance_type = "g5.xlarge"
  tags          = { gpuguard-profile = "profiles/broken.yaml" }
}

resource "aws_instance" "missing_profile" {
  instance_type = "g5.xlarge"
  tags          = { gpuguard-profile = "profiles/nope.yaml" }
}

# A missing profile is an error where it is attached: here the config's line.
resource "aws_instance" "config_missing" {
  instance_type = "g5.xlarge"
}

# A bare name (as a GCP label must be) is looked for under profiles/ too.
resource "aws_instance" "bare_missing" {
  instance_type = "g5.xlarge"
  tags          = { gpuguard-profile = "absent" }
}

resource "aws_instance" "bare_unsized" {
  instance_type = "g5.xlarge"
  tags          = { gpuguard-profile = "unsized" }
}
