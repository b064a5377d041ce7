# A launch template with the Auto Scaling groups that use it: a plain one, and one with a mixed
# instances policy that puts 2 + 25% of the rest on demand and the other instances on spot.
provider "aws" {
  region = "us-east-1"
}

resource "aws_launch_template" "inference" {
  name          = "inference-l4"
  instance_type = "g6.xlarge"
}

resource "aws_autoscaling_group" "inference" {
  desired_capacity = 3
  max_size         = 6
  min_size         = 1
  launch_template {
    id      = aws_launch_template.inference.id
    version = "$Latest"
  }
  tag {
    key                 = "team"
    value               = "serving"
    propagate_at_launch = true
  }
}

resource "aws_autoscaling_group" "mixed" {
  desired_capacity = 10
  max_size         = 20
  min_size         = 2
  mixed_instances_policy {
    instances_distribution {
      on_demand_base_capacity                  = 2
      on_demand_percentage_above_base_capacity = 25
    }
    launch_template {
      launch_template_specification {
        launch_template_name = "inference-l4"
      }
      override {
        instance_type = "g5.2xlarge"
      }
      override {
        instance_type = "g6.2xlarge"
      }
    }
  }
}

resource "aws_autoscaling_group" "by_min_size" {
  max_size = 4
  min_size = 2
  launch_template {
    id = aws_launch_template.inference.id
  }
}

# A development group that runs on weekdays from 08:00 to 19:00, Berlin time, and scales to zero
# otherwise: priced for the hours it runs (4 instances for 239.25 hours a month). Its cost tag
# comes from an aws_autoscaling_group_tag.
resource "aws_autoscaling_group" "dev" {
  name             = "gpu-dev"
  desired_capacity = 4
  max_size         = 4
  min_size         = 0
  launch_template {
    id      = aws_launch_template.inference.id
    version = "$Latest"
  }
}

resource "aws_autoscaling_schedule" "dev_up" {
  scheduled_action_name  = "weekday-morning"
  autoscaling_group_name = aws_autoscaling_group.dev.name
  recurrence             = "0 8 * * MON-FRI"
  time_zone              = "Europe/Berlin"
  min_size               = -1
  max_size               = -1
  desired_capacity       = 4
}

resource "aws_autoscaling_schedule" "dev_down" {
  scheduled_action_name  = "weekday-evening"
  autoscaling_group_name = aws_autoscaling_group.dev.name
  recurrence             = "0 19 * * MON-FRI"
  time_zone              = "Europe/Berlin"
  min_size               = 0
  max_size               = -1
  desired_capacity       = 0
}

resource "aws_autoscaling_group_tag" "dev_team" {
  autoscaling_group_name = aws_autoscaling_group.dev.name
  tag {
    key                 = "team"
    value               = "research"
    propagate_at_launch = true
  }
}
