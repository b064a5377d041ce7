provider "aws" {
  region = "us-east-1"
}

# Four H100 nodes held for a training run; two trainers are already pointed at them.
resource "aws_ec2_capacity_reservation" "h100" {
  instance_type           = "p5.48xlarge"
  instance_platform       = "Linux/UNIX"
  availability_zone       = "us-east-1a"
  instance_count          = 4
  instance_match_criteria = "targeted"
  end_date_type           = "limited"
  end_date                = "2027-03-31T00:00:00Z"

  tags = {
    team    = "research"
    project = "llm"
    env     = "prod"
  }
}

resource "aws_instance" "trainer" {
  count         = 2
  ami           = "ami-0123456789abcdef0"
  instance_type = "p5.48xlarge"

  capacity_reservation_specification {
    capacity_reservation_target {
      capacity_reservation_id = aws_ec2_capacity_reservation.h100.id
    }
  }

  tags = {
    team    = "research"
    project = "llm"
    env     = "prod"
  }
}

# CPU capacity is not a GPU resource: left out.
resource "aws_ec2_capacity_reservation" "cpu" {
  instance_type     = "m7i.large"
  instance_platform = "Linux/UNIX"
  availability_zone = "us-east-1a"
  instance_count    = 10
}
