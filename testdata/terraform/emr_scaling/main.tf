# EMR clusters that scale: a managed scaling policy bounds the core and task groups together
# (in instances, fleet units or vCPUs, the core group alone by maximum_core_capacity_units); an
# instance group's own automatic scaling policy bounds that group.

provider "aws" {
  region = "us-east-1"
}

locals {
  tags = { team = "data", project = "rapids", env = "prod" }
}

# Instance groups in instances: two g5.2xlarge core nodes (up to 6) and two g6.xlarge task
# nodes, at most 10 together. Growing both to their own maximums would need 16.
resource "aws_emr_cluster" "rapids" {
  name          = "rapids"
  release_label = "emr-7.2.0"
  service_role  = "EMR_DefaultRole"

  master_instance_group {
    instance_type = "m5.xlarge"
  }
  core_instance_group {
    instance_type  = "g5.2xlarge"
    instance_count = 2
  }
  tags = local.tags
}

resource "aws_emr_instance_group" "gpu_tasks" {
  cluster_id     = aws_emr_cluster.rapids.id
  instance_type  = "g6.xlarge"
  instance_count = 2
}

resource "aws_emr_managed_scaling_policy" "rapids" {
  cluster_id = aws_emr_cluster.rapids.id
  compute_limits {
    unit_type                       = "Instances"
    minimum_capacity_units          = 2
    maximum_capacity_units          = 10
    maximum_ondemand_capacity_units = 10
    maximum_core_capacity_units     = 6
  }
}

# An instance fleet in fleet units: g5.2xlarge weighs 2 units, 4 on-demand units are 2
# instances, 16 units at most are 8.
resource "aws_emr_cluster" "fleet" {
  name          = "fleet"
  release_label = "emr-7.2.0"
  service_role  = "EMR_DefaultRole"

  master_instance_fleet {
    instance_type_configs {
      instance_type = "m5.xlarge"
    }
    target_on_demand_capacity = 1
  }
  core_instance_fleet {
    instance_type_configs {
      instance_type     = "g5.2xlarge"
      weighted_capacity = 2
    }
    target_on_demand_capacity = 4
  }
  tags = local.tags
}

resource "aws_emr_managed_scaling_policy" "fleet" {
  cluster_id = aws_emr_cluster.fleet.id
  compute_limits {
    unit_type              = "InstanceFleetUnits"
    minimum_capacity_units = 4
    maximum_capacity_units = 16
  }
}

# In vCPUs: one g6.2xlarge (8 vCPUs) core node, 64 vCPUs at most: 8 nodes.
resource "aws_emr_cluster" "vcpu" {
  name          = "vcpu"
  release_label = "emr-7.2.0"
  service_role  = "EMR_DefaultRole"

  master_instance_group {
    instance_type = "m5.xlarge"
  }
  core_instance_group {
    instance_type  = "g6.2xlarge"
    instance_count = 1
  }
  tags = local.tags
}

resource "aws_emr_managed_scaling_policy" "vcpu" {
  cluster_id = aws_emr_cluster.vcpu.id
  compute_limits {
    unit_type              = "VCPU"
    minimum_capacity_units = 8
    maximum_capacity_units = 64
  }
}

# No managed scaling: the task group's own automatic scaling policy runs 1 to 5 instances.
resource "aws_emr_cluster" "custom" {
  name          = "custom"
  release_label = "emr-7.2.0"
  service_role  = "EMR_DefaultRole"

  master_instance_group {
    instance_type = "m5.xlarge"
  }
  core_instance_group {
    instance_type  = "m5.xlarge"
    instance_count = 2
  }
  tags = local.tags
}

resource "aws_emr_instance_group" "autoscaled" {
  cluster_id     = aws_emr_cluster.custom.id
  instance_type  = "g4dn.xlarge"
  instance_count = 1
  autoscaling_policy = jsonencode({
    Constraints = { MinCapacity = 1, MaxCapacity = 5 }
    Rules = [{
      Name   = "ScaleOutOnPendingContainers"
      Action = { SimpleScalingPolicyConfiguration = { AdjustmentType = "CHANGE_IN_CAPACITY", ScalingAdjustment = 1, CoolDown = 300 } }
      Trigger = { CloudWatchAlarmDefinition = { ComparisonOperator = "GREATER_THAN", EvaluationPeriods = 1, MetricName = "ContainerPendingRatio", Period = 300, Threshold = 0.75 } }
    }]
  })
}
