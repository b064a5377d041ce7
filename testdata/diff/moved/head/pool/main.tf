variable "instance_type" {
  type = string
}

resource "aws_instance" "node" {
  count         = 2
  instance_type = var.instance_type
}
