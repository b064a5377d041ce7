# Variable precedence, lowest to highest: default < terraform.tfvars < *.auto.tfvars (lexical)
# < --var-file < --var. Each variable below is set at one more level than the one before it.
provider "aws" {
  region = var.region
}

variable "region" {
  type    = string
  default = "us-east-1"
}

variable "from_default" {
  type    = string
  default = "g4dn.xlarge"
}

variable "from_tfvars" {
  type    = string
  default = "g4dn.xlarge"
}

variable "from_auto" {
  type    = string
  default = "g4dn.xlarge"
}

variable "from_var_file" {
  type    = string
  default = "g4dn.xlarge"
}

variable "from_var_flag" {
  type    = string
  default = "g4dn.xlarge"
}

variable "replicas" {
  type    = number
  default = 1
}

variable "pool" {
  type = object({
    type  = string
    count = optional(number, 3)
    spot  = optional(bool, false)
  })
  default = { type = "g6.xlarge" }
}

resource "aws_instance" "from_default" {
  instance_type = var.from_default
}

resource "aws_instance" "from_tfvars" {
  instance_type = var.from_tfvars
}

resource "aws_instance" "from_auto" {
  instance_type = var.from_auto
}

resource "aws_instance" "from_var_file" {
  instance_type = var.from_var_file
}

resource "aws_instance" "from_var_flag" {
  instance_type = var.from_var_flag
}

resource "aws_autoscaling_group" "typed" {
  desired_capacity = var.replicas * var.pool.count
  max_size         = 100
  min_size         = 0
  launch_template {
    id = aws_launch_template.pool.id
  }
}

resource "aws_launch_template" "pool" {
  instance_type = var.pool.type
}
