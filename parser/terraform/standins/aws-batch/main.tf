# gpuguard's stand-in for terraform-aws-modules/batch/aws: its compute environments at the
# module's address (aws_batch_compute_environment.this["key"], main.tf), with their type,
# instance types and vCPUs, and tags (var.tags merged with the environment's). Job queues, job
# definitions and IAM are not modelled.

variable "create" {
  type    = bool
  default = true
}

variable "compute_environments" {
  type     = any
  default  = {}
  nullable = false
}

variable "tags" {
  type     = map(string)
  default  = {}
  nullable = false
}

resource "aws_batch_compute_environment" "this" {
  for_each = { for k, v in var.compute_environments : k => v if var.create }

  type = lookup(each.value, "type", "MANAGED")

  dynamic "compute_resources" {
    for_each = try([each.value.compute_resources], [])
    content {
      type          = compute_resources.value.type
      min_vcpus     = try(compute_resources.value.min_vcpus, null)
      max_vcpus     = try(compute_resources.value.max_vcpus, null)
      desired_vcpus = try(compute_resources.value.desired_vcpus, null)
      instance_type = try(compute_resources.value.instance_types, [])
      tags          = try(compute_resources.value.tags, {})
    }
  }

  tags = merge(var.tags, lookup(each.value, "tags", {}))
}
