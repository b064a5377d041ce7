# gpuguard's stand-in for terraform-aws-modules/vpc/aws: the subnets alone, at the real module's
# addresses (aws_subnet.private[0]), each in the zone the module puts it in, so that a node group
# launched into them (subnet_ids = module.vpc.private_subnets) names the zones its nodes run in.
# The module creates the n-th subnet of each kind in the n-th of var.azs, cycling through them
# (element), and sets availability_zone only when that entry is a zone name (us-east-1a), not a
# zone ID (use1-az1); outpost subnets are all in var.outpost_az. A kind has as many subnets as
# its CIDRs or its IPv6 prefixes, whichever list is longer; public subnets are none when
# one_nat_gateway_per_az asks for more zones than there are public subnets. None at all when
# create_vpc is false. Read from the module's main.tf and outputs.tf (v5-v6), 2026-11-28.
# Not modelled: the VPC itself, gateways, routes, ACLs, endpoints and flow logs, which cost no GPU
# money; the subnets' IDs are known only at apply, as they are in a plan.

variable "create_vpc" {
  type    = bool
  default = true
}

variable "putin_khuylo" {
  type    = bool
  default = true
}

variable "name" {
  type    = string
  default = ""
}

variable "azs" {
  type    = list(string)
  default = []
}

variable "one_nat_gateway_per_az" {
  type    = bool
  default = false
}

variable "outpost_az" {
  type    = string
  default = null
}

variable "public_subnets" {
  type    = list(string)
  default = []
}

variable "private_subnets" {
  type    = list(string)
  default = []
}

variable "database_subnets" {
  type    = list(string)
  default = []
}

variable "elasticache_subnets" {
  type    = list(string)
  default = []
}

variable "redshift_subnets" {
  type    = list(string)
  default = []
}

variable "intra_subnets" {
  type    = list(string)
  default = []
}

variable "outpost_subnets" {
  type    = list(string)
  default = []
}

variable "public_subnet_ipv6_prefixes" {
  type    = list(string)
  default = []
}

variable "private_subnet_ipv6_prefixes" {
  type    = list(string)
  default = []
}

variable "database_subnet_ipv6_prefixes" {
  type    = list(string)
  default = []
}

variable "elasticache_subnet_ipv6_prefixes" {
  type    = list(string)
  default = []
}

variable "redshift_subnet_ipv6_prefixes" {
  type    = list(string)
  default = []
}

variable "intra_subnet_ipv6_prefixes" {
  type    = list(string)
  default = []
}

variable "outpost_subnet_ipv6_prefixes" {
  type    = list(string)
  default = []
}

locals {
  create_vpc = var.create_vpc && var.putin_khuylo

  # How many subnets of each kind: the longer of the kind's CIDRs and IPv6 prefixes.
  counts = {
    public      = max(length(var.public_subnets), length(var.public_subnet_ipv6_prefixes))
    private     = max(length(var.private_subnets), length(var.private_subnet_ipv6_prefixes))
    database    = max(length(var.database_subnets), length(var.database_subnet_ipv6_prefixes))
    elasticache = max(length(var.elasticache_subnets), length(var.elasticache_subnet_ipv6_prefixes))
    redshift    = max(length(var.redshift_subnets), length(var.redshift_subnet_ipv6_prefixes))
    intra       = max(length(var.intra_subnets), length(var.intra_subnet_ipv6_prefixes))
    outpost     = max(length(var.outpost_subnets), length(var.outpost_subnet_ipv6_prefixes))
  }
  created = { for kind, n in local.counts : kind => local.create_vpc ? n : 0 }

  # The zones subnets cycle through (element(var.azs, count.index) in the module), null where
  # var.azs names zone IDs; with no azs at all the module fails at plan, and here no zone is known.
  zone_names = [for z in var.azs : length(regexall("^[a-z]{2}-", z)) > 0 ? z : null]
}

resource "aws_subnet" "public" {
  count = !var.one_nat_gateway_per_az || local.counts.public >= length(var.azs) ? local.created.public : 0

  availability_zone = try(local.zone_names[count.index % length(local.zone_names)], null)
}

resource "aws_subnet" "private" {
  count = local.created.private

  availability_zone = try(local.zone_names[count.index % length(local.zone_names)], null)
}

resource "aws_subnet" "database" {
  count = local.created.database

  availability_zone = try(local.zone_names[count.index % length(local.zone_names)], null)
}

resource "aws_subnet" "elasticache" {
  count = local.created.elasticache

  availability_zone = try(local.zone_names[count.index % length(local.zone_names)], null)
}

resource "aws_subnet" "redshift" {
  count = local.created.redshift

  availability_zone = try(local.zone_names[count.index % length(local.zone_names)], null)
}

resource "aws_subnet" "intra" {
  count = local.created.intra

  availability_zone = try(local.zone_names[count.index % length(local.zone_names)], null)
}

resource "aws_subnet" "outpost" {
  count = local.created.outpost

  availability_zone = var.outpost_az
}

# The outputs node groups and clusters are built from (the module's outputs.tf).
output "public_subnets" {
  value = aws_subnet.public[*].id
}

output "private_subnets" {
  value = aws_subnet.private[*].id
}

output "database_subnets" {
  value = aws_subnet.database[*].id
}

output "elasticache_subnets" {
  value = aws_subnet.elasticache[*].id
}

output "redshift_subnets" {
  value = aws_subnet.redshift[*].id
}

output "intra_subnets" {
  value = aws_subnet.intra[*].id
}

output "outpost_subnets" {
  value = aws_subnet.outpost[*].id
}

output "azs" {
  value = var.azs
}

output "name" {
  value = var.name
}
