# A cut-down terraform-aws-modules/eks/aws: one managed node group per map entry.
variable "cluster_name" {
  type = string
}

variable "eks_managed_node_groups" {
  type    = any
  default = {}
}

module "eks_managed_node_group" {
  source   = "./modules/node-group"
  for_each = var.eks_managed_node_groups

  cluster_name   = var.cluster_name
  name           = each.key
  instance_types = try(each.value.instance_types, ["t3.medium"])
  desired_size   = try(each.value.desired_size, 1)
  capacity_type  = try(each.value.capacity_type, "ON_DEMAND")
}
