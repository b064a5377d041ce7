# gpuguard's stand-in for cloudposse/label/null: no resources, only the names and tags it
# computes, so that the modules built on it (every Cloud Posse module carries one as module.this,
# through context.tf) name their node groups and tag them as the real module would. Modelled on
# the module's v0.25 behaviour: each label is the variable, else the context's; attributes add
# up; values lose the characters regex_replace_chars names (all but letters, digits and "-" by
# default) and are lower-cased (label_value_case); the id joins the non-empty labels in
# label_order (namespace, environment, stage, name, attributes by default: tenant only when
# label_order names it) with the delimiter; the tags are the context's, then one per non-empty
# label (Name is the id), then the given tags. Not modelled: id_length_limit (an id shortened with a hash),
# label_key_case, labels_as_tags, additional_tag_map and descriptors.

variable "context" {
  type    = any
  default = {}
}

variable "enabled" {
  type    = bool
  default = null
}

variable "namespace" {
  type    = string
  default = null
}

variable "tenant" {
  type    = string
  default = null
}

variable "environment" {
  type    = string
  default = null
}

variable "stage" {
  type    = string
  default = null
}

variable "name" {
  type    = string
  default = null
}

variable "delimiter" {
  type    = string
  default = null
}

variable "attributes" {
  type    = list(string)
  default = []
}

variable "tags" {
  type    = map(string)
  default = {}
}

variable "label_order" {
  type    = list(string)
  default = null
}

variable "regex_replace_chars" {
  type    = string
  default = null
}

variable "label_value_case" {
  type    = string
  default = null
}

locals {
  # try() reads a label the context lacks, or a null context, as null.
  ctx = var.context

  enabled     = coalesce(var.enabled, try(local.ctx.enabled, null), true)
  delimiter   = coalesce(var.delimiter, try(local.ctx.delimiter, null), "-")
  label_order = coalescelist(try(tolist(var.label_order), []), try(tolist(local.ctx.label_order), []), ["namespace", "environment", "stage", "name", "attributes"])
  replace     = coalesce(var.regex_replace_chars, try(local.ctx.regex_replace_chars, null), "/[^-a-zA-Z0-9]/")
  value_case  = coalesce(var.label_value_case, try(local.ctx.label_value_case, null), "lower")

  given = {
    namespace   = var.namespace != null ? var.namespace : try(local.ctx.namespace, null)
    tenant      = var.tenant != null ? var.tenant : try(local.ctx.tenant, null)
    environment = var.environment != null ? var.environment : try(local.ctx.environment, null)
    stage       = var.stage != null ? var.stage : try(local.ctx.stage, null)
    name        = var.name != null ? var.name : try(local.ctx.name, null)
  }
  given_attributes = compact(distinct(concat(try(tolist(local.ctx.attributes), []), try(tolist(var.attributes), []))))

  cleaned    = { for k, v in local.given : k => replace(v == null ? "" : v, local.replace, "") }
  labels     = { for k, v in local.cleaned : k => local.value_case == "none" ? v : local.value_case == "upper" ? upper(v) : local.value_case == "title" ? title(lower(v)) : lower(v) }
  attributes = compact(distinct([for a in local.given_attributes : local.value_case == "none" ? replace(a, local.replace, "") : local.value_case == "upper" ? upper(replace(a, local.replace, "")) : lower(replace(a, local.replace, ""))]))

  id_parts = merge(local.labels, { attributes = join(local.delimiter, local.attributes) })
  id       = local.enabled ? join(local.delimiter, [for l in local.label_order : local.id_parts[l] if length(local.id_parts[l]) > 0]) : ""

  tag_values = {
    Namespace   = local.labels.namespace
    Tenant      = local.labels.tenant
    Environment = local.labels.environment
    Stage       = local.labels.stage
    Name        = local.id
    Attributes  = local.id_parts.attributes
  }
  # The context's tags, then this label's own (Name is its id), then the tags given to it; merge
  # skips a null.
  tags = local.enabled ? merge(try(local.ctx.tags, null), { for k, v in local.tag_values : k => v if length(v) > 0 }, var.tags) : {}
}

output "id" {
  value = local.id
}

output "id_full" {
  value = local.id
}

output "enabled" {
  value = local.enabled
}

output "namespace" {
  value = local.enabled ? local.labels.namespace : ""
}

output "tenant" {
  value = local.enabled ? local.labels.tenant : ""
}

output "environment" {
  value = local.enabled ? local.labels.environment : ""
}

output "stage" {
  value = local.enabled ? local.labels.stage : ""
}

output "name" {
  value = local.enabled ? local.labels.name : ""
}

output "delimiter" {
  value = local.delimiter
}

output "attributes" {
  value = local.attributes
}

output "tags" {
  value = local.tags
}

output "label_order" {
  value = local.label_order
}

# What the next label down starts from: the given labels and attributes (its own are added to
# them) with this label's settings; normalized_context has the cleaned, cased ones instead.
locals {
  settings = {
    enabled             = local.enabled
    delimiter           = local.delimiter
    tags                = local.tags
    label_order         = local.label_order
    regex_replace_chars = local.replace
    label_value_case    = local.value_case
  }
}

output "context" {
  value = merge(local.settings, local.given, { attributes = local.given_attributes })
}

output "normalized_context" {
  value = merge(local.settings, local.labels, { attributes = local.attributes })
}
