# gpuguard's stand-in for terraform-google-modules/vm/google//modules/compute_instance and
# //modules/umig: num_instances instances (1 by default; one per address in static_ips when that
# is set) made from instance_template, at the address both modules give them
# (google_compute_instance_from_template.compute_instance[i]), in zone or else in region (the
# modules spread instances over the region's zones). Defaults from the modules' variables.tf.
# Networks and the unmanaged instance groups umig adds are not modelled.

variable "region" {
  type    = string
  default = null
}

variable "zone" {
  type    = string
  default = null
}

variable "instance_template" {
  type    = string
  default = null
}

variable "num_instances" {
  type    = number
  default = 1
}

variable "static_ips" {
  type     = list(string)
  default  = []
  nullable = false
}

resource "google_compute_instance_from_template" "compute_instance" {
  count = length(var.static_ips) == 0 ? var.num_instances : length(var.static_ips)

  zone                     = var.zone != null ? var.zone : var.region
  source_instance_template = var.instance_template
}
