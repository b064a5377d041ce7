variable "name" {
  type = string
}

variable "gpu_type" {
  type = string
}

variable "replicas" {
  type = number
}

module "gpu" {
  source = "./modules/gpu"
  count  = var.replicas
  name   = "${var.name}-${count.index}"
  type   = var.gpu_type
}

output "instance_ids" {
  value = module.gpu[*].id
}
