# The newer one-rule-per-resource style: aws_vpc_security_group_ingress_rule /
# egress_rule from for_each over maps of objects, each rule picking one source
# kind with try() and null defaults.

variable "name" {
  type    = string
  default = "db"
}

variable "ingress_rules" {
  type = map(object({
    from_port                    = optional(number)
    to_port                      = optional(number)
    ip_protocol                  = optional(string, "tcp")
    cidr_ipv4                    = optional(string)
    cidr_ipv6                    = optional(string)
    referenced_security_group_id = optional(string)
    description                  = optional(string)
    tags                         = optional(map(string), {})
  }))
  default = {
    postgres-vpc  = { from_port = 5432, to_port = 5432, cidr_ipv4 = "10.60.0.0/16", description = "Postgres from VPC" }
    postgres-self = { from_port = 5432, to_port = 5432, referenced_security_group_id = "self" }
    icmp          = { from_port = -1, to_port = -1, ip_protocol = "icmp", cidr_ipv4 = "10.60.0.0/16" }
  }
}

variable "egress_rules" {
  type = map(object({
    ip_protocol = optional(string, "-1")
    cidr_ipv4   = optional(string)
    cidr_ipv6   = optional(string)
  }))
  default = {
    all-ipv4 = { cidr_ipv4 = "0.0.0.0/0" }
    all-ipv6 = { cidr_ipv6 = "::/0" }
  }
}

resource "aws_vpc" "this" {
  cidr_block = "10.60.0.0/16"
}

resource "aws_security_group" "this" {
  name_prefix = "${var.name}-"
  description = "Database access"
  vpc_id      = aws_vpc.this.id

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_ingress_rule" "this" {
  for_each = var.ingress_rules

  security_group_id = aws_security_group.this.id
  description       = try(coalesce(each.value.description, each.key), null)
  from_port         = try(each.value.from_port, null)
  to_port           = try(each.value.to_port, null)
  ip_protocol       = each.value.ip_protocol
  cidr_ipv4         = each.value.cidr_ipv4
  cidr_ipv6         = each.value.cidr_ipv6

  referenced_security_group_id = each.value.referenced_security_group_id == "self" ? aws_security_group.this.id : each.value.referenced_security_group_id

  tags = merge({ Name = each.key }, each.value.tags)
}

resource "aws_vpc_security_group_egress_rule" "this" {
  for_each = var.egress_rules

  security_group_id = aws_security_group.this.id
  ip_protocol       = each.value.ip_protocol
  cidr_ipv4         = each.value.cidr_ipv4
  cidr_ipv6         = each.value.cidr_ipv6
}

output "ingress_rule_ids" {
  value = { for k, r in aws_vpc_security_group_ingress_rule.this : k => r.security_group_rule_id }
}

output "security_group_id" {
  value = aws_security_group.this.id
}
