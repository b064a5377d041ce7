# gpuguard's stand-in for terraform-aws-modules/ec2-instance/aws: the instance at the address the
# module gives it (main.tf, v5): aws_instance.this[0], aws_instance.ignore_ami[0] with
# ignore_ami_changes, or aws_spot_instance_request.this[0] with create_spot_instance; its type
# (t3.micro by default), availability zone, market options and capacity reservation, and its
# tags (Name, instance_tags, tags). IAM, EIP and volumes are not modelled.

variable "create" {
  type    = bool
  default = true
}

variable "name" {
  type    = string
  default = ""
}

variable "instance_type" {
  type    = string
  default = "t3.micro"
}

variable "availability_zone" {
  type    = string
  default = null
}

variable "create_spot_instance" {
  type    = bool
  default = false
}

variable "ignore_ami_changes" {
  type    = bool
  default = false
}

variable "instance_market_options" {
  type     = any
  default  = {}
  nullable = false
}

variable "capacity_reservation_specification" {
  type     = any
  default  = {}
  nullable = false
}

variable "instance_tags" {
  type     = map(string)
  default  = {}
  nullable = false
}

variable "tags" {
  type     = map(string)
  default  = {}
  nullable = false
}

locals {
  tags = merge({ "Name" = var.name }, var.instance_tags, var.tags)
}

resource "aws_instance" "this" {
  count = var.create && !var.ignore_ami_changes && !var.create_spot_instance ? 1 : 0

  instance_type     = var.instance_type
  availability_zone = var.availability_zone

  dynamic "instance_market_options" {
    for_each = length(var.instance_market_options) > 0 ? [var.instance_market_options] : []
    content {
      market_type = try(instance_market_options.value.market_type, null)
    }
  }

  dynamic "capacity_reservation_specification" {
    for_each = length(var.capacity_reservation_specification) > 0 ? [var.capacity_reservation_specification] : []
    content {
      capacity_reservation_preference = try(capacity_reservation_specification.value.capacity_reservation_preference, null)

      dynamic "capacity_reservation_target" {
        for_each = try([capacity_reservation_specification.value.capacity_reservation_target], [])
        content {
          capacity_reservation_id = try(capacity_reservation_target.value.capacity_reservation_id, null)
        }
      }
    }
  }

  tags = local.tags
}

resource "aws_instance" "ignore_ami" {
  count = var.create && var.ignore_ami_changes && !var.create_spot_instance ? 1 : 0

  instance_type     = var.instance_type
  availability_zone = var.availability_zone

  dynamic "instance_market_options" {
    for_each = length(var.instance_market_options) > 0 ? [var.instance_market_options] : []
    content {
      market_type = try(instance_market_options.value.market_type, null)
    }
  }

  tags = local.tags
}

resource "aws_spot_instance_request" "this" {
  count = var.create && var.create_spot_instance ? 1 : 0

  instance_type     = var.instance_type
  availability_zone = var.availability_zone

  tags = local.tags
}
