variable "name" {
  type = string
}

variable "type" {
  type = string
}

resource "aws_instance" "this" {
  instance_type = var.type
  tags          = { Name = var.name }
}

output "id" {
  value = aws_instance.this.id
}
