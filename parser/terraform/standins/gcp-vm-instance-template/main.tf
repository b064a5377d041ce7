# gpuguard's stand-in for terraform-google-modules/vm/google//modules/instance_template: the
# template at the address the module gives it (google_compute_instance_template.tpl) with its
# machine type (n1-standard-1 by default), GPU (gpu = { type, count }), spot or preemptible
# scheduling, region and labels, and the outputs a managed instance group or instance is made
# from (self_link, self_link_unique, name, id). Defaults from the module's variables.tf (v10-v13).
# Disks, networks, service accounts and metadata are not modelled.

variable "project_id" {
  type    = string
  default = null
}

variable "name_prefix" {
  type    = string
  default = "default-instance-template"
}

variable "machine_type" {
  type    = string
  default = "n1-standard-1"
}

variable "region" {
  type    = string
  default = null
}

variable "labels" {
  type     = map(string)
  default  = {}
  nullable = false
}

variable "preemptible" {
  type    = bool
  default = false
}

variable "spot" {
  type    = bool
  default = false
}

variable "gpu" {
  type = object({
    type  = string
    count = number
  })
  default = null
}

resource "google_compute_instance_template" "tpl" {
  name_prefix  = "${var.name_prefix}-"
  project      = var.project_id
  machine_type = var.machine_type
  region       = var.region
  labels       = var.labels

  scheduling {
    preemptible        = var.preemptible || var.spot
    provisioning_model = var.spot ? "SPOT" : null
  }

  dynamic "guest_accelerator" {
    for_each = var.gpu != null ? [var.gpu] : []
    content {
      type  = guest_accelerator.value.type
      count = guest_accelerator.value.count
    }
  }
}

output "self_link" {
  value = google_compute_instance_template.tpl.self_link
}

output "self_link_unique" {
  value = google_compute_instance_template.tpl.self_link_unique
}

output "name" {
  value = google_compute_instance_template.tpl.name
}

output "id" {
  value = google_compute_instance_template.tpl.id
}
