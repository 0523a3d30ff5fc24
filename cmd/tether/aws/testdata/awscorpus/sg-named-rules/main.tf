# Modelled on the named-rule style of the popular security-group module: a map
# of well known rules (from, to, protocol, description), lists of rule names
# expanded with count, and "with_*" lists of maps read with lookup() fallbacks.

variable "create" {
  type    = bool
  default = true
}

variable "name" {
  type    = string
  default = "web-server"
}

variable "use_name_prefix" {
  type    = bool
  default = true
}

variable "vpc_cidr" {
  type    = string
  default = "10.40.0.0/16"
}

variable "rules" {
  type = map(list(any))
  default = {
    http-80-tcp   = [80, 80, "tcp", "HTTP"]
    https-443-tcp = [443, 443, "tcp", "HTTPS"]
    ssh-tcp       = [22, 22, "tcp", "SSH"]
    postgresql    = [5432, 5432, "tcp", "PostgreSQL"]
    all-all       = [-1, -1, "-1", "All protocols"]
    _             = ["", "", ""]
  }
}

variable "ingress_rules" {
  type    = list(string)
  default = ["http-80-tcp", "https-443-tcp"]
}

variable "ingress_cidr_blocks" {
  type    = list(string)
  default = ["0.0.0.0/0"]
}

variable "ingress_with_cidr_blocks" {
  type = list(map(string))
  default = [
    {
      rule        = "postgresql"
      cidr_blocks = "10.40.0.0/16"
    },
    {
      from_port   = 8080
      to_port     = 8090
      protocol    = "tcp"
      description = "User-service ports"
      cidr_blocks = "10.40.0.0/16,10.41.0.0/16"
    },
  ]
}

variable "ingress_with_self" {
  type    = list(map(string))
  default = [{ rule = "all-all" }]
}

variable "egress_rules" {
  type    = list(string)
  default = ["all-all"]
}

variable "egress_cidr_blocks" {
  type    = list(string)
  default = ["0.0.0.0/0"]
}

variable "tags" {
  type    = map(string)
  default = { Service = "web" }
}

resource "aws_vpc" "this" {
  cidr_block = var.vpc_cidr
}

locals {
  this_sg_id = var.create ? (var.use_name_prefix ? aws_security_group.this_name_prefix[0].id : aws_security_group.this[0].id) : ""
}

resource "aws_security_group" "this" {
  count = var.create && !var.use_name_prefix ? 1 : 0

  name                   = var.name
  description            = "Security Group managed by Terraform"
  vpc_id                 = aws_vpc.this.id
  revoke_rules_on_delete = false

  tags = merge({ Name = var.name }, var.tags)
}

resource "aws_security_group" "this_name_prefix" {
  count = var.create && var.use_name_prefix ? 1 : 0

  name_prefix            = "${var.name}-"
  description            = "Security Group managed by Terraform"
  vpc_id                 = aws_vpc.this.id
  revoke_rules_on_delete = false

  tags = merge({ Name = var.name }, var.tags)

  lifecycle {
    create_before_destroy = true
  }

  timeouts {
    create = "10m"
    delete = "15m"
  }
}

resource "aws_security_group_rule" "ingress_rules" {
  count = var.create ? length(var.ingress_rules) : 0

  security_group_id = local.this_sg_id
  type              = "ingress"

  cidr_blocks = var.ingress_cidr_blocks
  description = var.rules[var.ingress_rules[count.index]][3]

  from_port = var.rules[var.ingress_rules[count.index]][0]
  to_port   = var.rules[var.ingress_rules[count.index]][1]
  protocol  = var.rules[var.ingress_rules[count.index]][2]
}

resource "aws_security_group_rule" "ingress_with_cidr_blocks" {
  count = var.create ? length(var.ingress_with_cidr_blocks) : 0

  security_group_id = local.this_sg_id
  type              = "ingress"

  cidr_blocks = compact(split(",", lookup(var.ingress_with_cidr_blocks[count.index], "cidr_blocks", join(",", var.ingress_cidr_blocks))))
  description = lookup(var.ingress_with_cidr_blocks[count.index], "description", "Ingress Rule")

  from_port = lookup(var.ingress_with_cidr_blocks[count.index], "from_port", var.rules[lookup(var.ingress_with_cidr_blocks[count.index], "rule", "_")][0])
  to_port   = lookup(var.ingress_with_cidr_blocks[count.index], "to_port", var.rules[lookup(var.ingress_with_cidr_blocks[count.index], "rule", "_")][1])
  protocol  = lookup(var.ingress_with_cidr_blocks[count.index], "protocol", var.rules[lookup(var.ingress_with_cidr_blocks[count.index], "rule", "_")][2])
}

resource "aws_security_group_rule" "ingress_with_self" {
  count = var.create ? length(var.ingress_with_self) : 0

  security_group_id = local.this_sg_id
  type              = "ingress"

  self        = lookup(var.ingress_with_self[count.index], "self", true)
  description = lookup(var.ingress_with_self[count.index], "description", "Ingress Rule")

  from_port = lookup(var.ingress_with_self[count.index], "from_port", var.rules[lookup(var.ingress_with_self[count.index], "rule", "_")][0])
  to_port   = lookup(var.ingress_with_self[count.index], "to_port", var.rules[lookup(var.ingress_with_self[count.index], "rule", "_")][1])
  protocol  = lookup(var.ingress_with_self[count.index], "protocol", var.rules[lookup(var.ingress_with_self[count.index], "rule", "_")][2])
}

resource "aws_security_group_rule" "egress_rules" {
  count = var.create ? length(var.egress_rules) : 0

  security_group_id = local.this_sg_id
  type              = "egress"

  cidr_blocks = var.egress_cidr_blocks
  description = var.rules[var.egress_rules[count.index]][3]

  from_port = var.rules[var.egress_rules[count.index]][0]
  to_port   = var.rules[var.egress_rules[count.index]][1]
  protocol  = var.rules[var.egress_rules[count.index]][2]
}

output "security_group_id" {
  value = local.this_sg_id
}

output "security_group_arn" {
  value = try(aws_security_group.this[0].arn, aws_security_group.this_name_prefix[0].arn, "")
}

output "security_group_name" {
  value = try(aws_security_group.this[0].name, aws_security_group.this_name_prefix[0].name, "")
}
