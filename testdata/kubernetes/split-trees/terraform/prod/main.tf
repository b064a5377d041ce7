# The prod cluster's serving node group: L40S nodes, labelled workload=serve as the staging
# cluster's group is (../staging).
provider "aws" {
  region = "us-east-1"
}

resource "aws_eks_node_group" "serve" {
  cluster_name    = "prod"
  node_group_name = "serve"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-nodes"
  subnet_ids      = ["subnet-1", "subnet-2"]
  instance_types  = ["g6e.xlarge"]
  capacity_type   = "ON_DEMAND"
  labels          = { workload = "serve" }
  tags            = { team = "ml", project = "serve", env = "prod" }
  scaling_config {
    min_size     = 3
    desired_size = 3
    max_size     = 6
  }
}
