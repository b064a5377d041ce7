resource "aws_instance" "old" {
  instance_type = "p4d.24xlarge"
}
