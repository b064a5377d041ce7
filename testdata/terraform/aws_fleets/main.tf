# EC2 Fleet and Spot Fleet requests of GPU instances.
provider "aws" {
  region = "us-east-1"
}

resource "aws_launch_template" "gpu" {
  name          = "gpu"
  instance_type = "g5.xlarge"
}

# 6 instances: 2 on-demand, the rest spot (the default capacity type).
resource "aws_ec2_fleet" "inference" {
  launch_template_config {
    launch_template_specification {
      launch_template_id = aws_launch_template.gpu.id
      version            = "$Latest"
    }
    override {
      instance_type = "g6.xlarge"
    }
    override {
      instance_type = "g5.xlarge"
    }
  }
  target_capacity_specification {
    default_target_capacity_type = "spot"
    total_target_capacity        = 6
    on_demand_target_capacity    = 2
  }
  tags = { team = "serving", project = "embed", env = "prod" }
}

# Weighted: 32 capacity units at 8 per p4d.24xlarge are 4 instances, all spot.
resource "aws_spot_fleet_request" "training" {
  iam_fleet_role  = "arn:aws:iam::123456789012:role/spot-fleet"
  target_capacity = 32
  launch_specification {
    instance_type     = "p4d.24xlarge"
    ami               = "ami-123"
    weighted_capacity = 8
  }
}

# The template's own type when there are no overrides; all on-demand.
resource "aws_ec2_fleet" "on_demand" {
  launch_template_config {
    launch_template_specification {
      launch_template_name = "gpu"
      version              = "1"
    }
  }
  target_capacity_specification {
    default_target_capacity_type = "on-demand"
    total_target_capacity        = 3
  }
}
