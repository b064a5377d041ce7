variable "cluster_name" { type = string }
variable "name" { type = string }
variable "instance_types" { type = list(string) }
variable "desired_size" { type = number }
variable "capacity_type" { type = string }

resource "aws_eks_node_group" "this" {
  cluster_name    = var.cluster_name
  node_group_name = var.name
  instance_types  = var.instance_types
  capacity_type   = var.capacity_type

  scaling_config {
    desired_size = var.desired_size
    min_size     = 0
    max_size     = 10
  }
}
