# gpuguard's stand-in for terraform-google-modules/vm/google//modules/mig: the regional managed
# instance group at the address the module gives it
# (google_compute_region_instance_group_manager.mig) made from instance_template (a template's
# self_link: one from the instance_template module is followed), with target_size (1 by default)
# or, with autoscaling_enabled, the regional autoscaler's min_replicas and max_replicas (2 and 10
# by default). Defaults from the module's variables.tf. Health checks, update policies and
# stateful disks are not modelled.

variable "project_id" {
  type    = string
  default = null
}

variable "region" {
  type    = string
  default = null
}

variable "instance_template" {
  type    = string
  default = null
}

variable "target_size" {
  type    = number
  default = 1
}

variable "autoscaling_enabled" {
  type    = bool
  default = false
}

variable "min_replicas" {
  type    = number
  default = 2
}

variable "max_replicas" {
  type    = number
  default = 10
}

variable "autoscaling_mode" {
  type    = string
  default = null
}

resource "google_compute_region_instance_group_manager" "mig" {
  project = var.project_id
  region  = var.region

  version {
    instance_template = var.instance_template
  }

  target_size = var.autoscaling_enabled ? null : var.target_size
}

resource "google_compute_region_autoscaler" "autoscaler" {
  count   = var.autoscaling_enabled ? 1 : 0
  project = var.project_id
  region  = var.region
  target  = google_compute_region_instance_group_manager.mig.self_link

  autoscaling_policy {
    max_replicas = var.max_replicas
    min_replicas = var.min_replicas
    mode         = var.autoscaling_mode
  }
}
