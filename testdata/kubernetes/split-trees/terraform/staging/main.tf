# The staging cluster's serving node group: A10G nodes on spot, labelled workload=serve as the
# prod cluster's group is (../prod).
provider "aws" {
  region = "us-east-1"
}

resource "aws_eks_node_group" "serve" {
  cluster_name    = "staging"
  node_group_name = "serve"
  node_role_arn   = "arn:aws:iam::123456789012:role/eks-nodes"
  subnet_ids      = ["subnet-1", "subnet-2"]
  instance_types  = ["g5.xlarge"]
  capacity_type   = "SPOT"
  labels          = { workload = "serve" }
  tags            = { team = "ml", project = "serve", env = "staging" }
  scaling_config {
    min_size     = 1
    desired_size = 1
    max_size     = 2
  }
}
