# Inline rules on aws_security_group: static ingress/egress written as blocks
# (an attribute of the SDKv2 schema), mixed with dynamic ingress blocks built
# from a map of objects with optional attributes.

variable "name" {
  type    = string
  default = "app-inline"
}

variable "ingress" {
  type = map(object({
    from_port       = number
    to_port         = optional(number)
    protocol        = optional(string, "tcp")
    cidr_blocks     = optional(list(string), [])
    security_groups = optional(list(string), [])
    description     = optional(string)
  }))
  default = {
    https = { from_port = 443, cidr_blocks = ["0.0.0.0/0"], description = "public HTTPS" }
    app   = { from_port = 8000, to_port = 8010, cidr_blocks = ["10.50.0.0/16"] }
    dns   = { from_port = 53, protocol = "udp", cidr_blocks = ["10.50.0.2/32"] }
  }
}

resource "aws_vpc" "this" {
  cidr_block = "10.50.0.0/16"
  tags       = { Name = var.name }
}

resource "aws_security_group" "lb" {
  name        = "${var.name}-lb"
  description = "Load balancer"
  vpc_id      = aws_vpc.this.id

  ingress {
    description      = "HTTP from anywhere"
    from_port        = 80
    to_port          = 80
    protocol         = "tcp"
    cidr_blocks      = ["0.0.0.0/0"]
    ipv6_cidr_blocks = ["::/0"]
  }

  egress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }
}

resource "aws_security_group" "app" {
  name        = "${var.name}-app"
  description = "Application tier"
  vpc_id      = aws_vpc.this.id

  dynamic "ingress" {
    for_each = var.ingress
    content {
      description     = coalesce(ingress.value.description, "rule ${ingress.key}")
      from_port       = ingress.value.from_port
      to_port         = coalesce(ingress.value.to_port, ingress.value.from_port)
      protocol        = ingress.value.protocol
      cidr_blocks     = ingress.value.cidr_blocks
      security_groups = ingress.value.security_groups
    }
  }

  ingress {
    description     = "from the load balancer"
    from_port       = 8080
    to_port         = 8080
    protocol        = "tcp"
    security_groups = [aws_security_group.lb.id]
  }

  egress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }

  tags = { Name = "${var.name}-app" }

  lifecycle {
    create_before_destroy = true
    prevent_destroy       = false
  }
}

output "app_security_group_id" {
  value = aws_security_group.app.id
}

output "lb_ingress_ports" {
  value = [for r in aws_security_group.lb.ingress : r.from_port]
}
