variable "instance_type" {
  type = string
}

variable "replicas" {
  type = number
}

variable "owner" {
  type = string
}

variable "tags" {
  type = map(string)
}

resource "aws_instance" "serve" {
  count         = var.replicas
  ami           = "ami-0123456789abcdef0"
  instance_type = var.instance_type
  tags          = merge(var.tags, { env = "prod", owner = var.owner })
}
