variable "cluster_name" {
  type = string
}

variable "instance_type" {
  type = string
}

variable "node_count" {
  type    = number
  default = 1
}

variable "capacity_type" {
  type    = string
  default = "ON_DEMAND"
}

variable "subnet_ids" {
  type = list(string)
}

variable "tags" {
  type    = map(string)
  default = {}
}
