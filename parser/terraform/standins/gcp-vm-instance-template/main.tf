# gpuguard's stand-in for terraform-google-modules/vm/google//modules/instance_template: the
# template at the address the module gives it (google_compute_instance_template.tpl) with its
# machine type (n1-standard-1 by default), GPU (gpu = { type, count }), spot or preemptible
# scheduling, region and labels, its metadata and startup_script (which the module passes as
# metadata and metadata_startup_script: a k3s, RKE2 or kubeadm node they boot makes the group
# that uses the template a node group), and the outputs a managed instance group or instance is
# made from (self_link, self_link_unique, name, id). Defaults from the module's variables.tf
# (v10-v13). Disks, networks and service accounts are not modelled.

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

variable "metadata" {
  type     = map(string)
  default  = {}
  nullable = false
}

variable "startup_script" {
  type    = string
  default = null
}

variable "preemptible" {
  type    = bool
  default = false
}

variable "spot" {
  type    = bool
  default = false
}

# The module sets TERMINATE itself for a preemptible, spot or confidential VM and for one given a
# gpu; any other VM gets this, MIGRATE by default, so a machine type with GPUs built in (a2, g2)
# needs on_host_maintenance = "TERMINATE" from the caller.
variable "on_host_maintenance" {
  type    = string
  default = "MIGRATE"
}

variable "enable_confidential_vm" {
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

  metadata                = var.metadata
  metadata_startup_script = var.startup_script != "" ? var.startup_script : null

  scheduling {
    preemptible         = var.preemptible || var.spot
    provisioning_model  = var.spot ? "SPOT" : null
    on_host_maintenance = var.preemptible || var.spot || var.enable_confidential_vm || var.gpu != null ? "TERMINATE" : var.on_host_maintenance
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
