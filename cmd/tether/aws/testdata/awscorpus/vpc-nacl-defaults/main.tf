# Modelled on the VPC modules' "manage the default resources" and network ACL
# options: the default NACL, security group and route table are adopted with
# attributes written as blocks, dedicated NACLs take their rules from lists of
# maps read with lookup().

variable "name" {
  type    = string
  default = "corpus-nacl"
}

variable "manage_default_network_acl" {
  type    = bool
  default = true
}

variable "manage_default_security_group" {
  type    = bool
  default = true
}

variable "manage_default_route_table" {
  type    = bool
  default = true
}

variable "public_dedicated_network_acl" {
  type    = bool
  default = true
}

variable "default_network_acl_ingress" {
  type = list(map(string))
  default = [
    {
      rule_no    = 100
      action     = "allow"
      from_port  = 0
      to_port    = 0
      protocol   = "-1"
      cidr_block = "0.0.0.0/0"
    },
  ]
}

variable "public_inbound_acl_rules" {
  type = list(map(string))
  default = [
    { rule_number = 100, rule_action = "allow", from_port = 80, to_port = 80, protocol = "tcp", cidr_block = "0.0.0.0/0" },
    { rule_number = 110, rule_action = "allow", from_port = 443, to_port = 443, protocol = "tcp", cidr_block = "0.0.0.0/0" },
    { rule_number = 120, rule_action = "allow", from_port = 1024, to_port = 65535, protocol = "tcp", cidr_block = "0.0.0.0/0" },
  ]
}

variable "public_outbound_acl_rules" {
  type = list(map(string))
  default = [
    { rule_number = 100, rule_action = "allow", from_port = 0, to_port = 0, protocol = "-1", cidr_block = "0.0.0.0/0" },
  ]
}

resource "aws_vpc" "this" {
  cidr_block = "10.30.0.0/16"
  tags       = { Name = var.name }
}

resource "aws_subnet" "public" {
  count = 2

  vpc_id            = aws_vpc.this.id
  cidr_block        = cidrsubnet(aws_vpc.this.cidr_block, 8, count.index)
  availability_zone = element(["us-east-1a", "us-east-1b"], count.index)
}

resource "aws_default_network_acl" "this" {
  count = var.manage_default_network_acl ? 1 : 0

  default_network_acl_id = aws_vpc.this.default_network_acl_id
  subnet_ids             = null

  dynamic "ingress" {
    for_each = var.default_network_acl_ingress
    content {
      action     = ingress.value.action
      cidr_block = lookup(ingress.value, "cidr_block", null)
      from_port  = ingress.value.from_port
      protocol   = ingress.value.protocol
      rule_no    = ingress.value.rule_no
      to_port    = ingress.value.to_port
    }
  }

  egress {
    action     = "allow"
    cidr_block = "0.0.0.0/0"
    from_port  = 0
    protocol   = "-1"
    rule_no    = 100
    to_port    = 0
  }

  tags = { Name = "${var.name}-default" }

  lifecycle {
    ignore_changes = [subnet_ids]
  }
}

resource "aws_default_security_group" "this" {
  count = var.manage_default_security_group ? 1 : 0

  vpc_id = aws_vpc.this.id

  ingress {
    protocol  = "-1"
    self      = true
    from_port = 0
    to_port   = 0
  }

  egress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }

  tags = { Name = "${var.name}-default" }
}

resource "aws_default_route_table" "this" {
  count = var.manage_default_route_table ? 1 : 0

  default_route_table_id = aws_vpc.this.default_route_table_id

  route {
    cidr_block = "192.168.0.0/16"
    gateway_id = aws_internet_gateway.this.id
  }

  timeouts {
    create = "5m"
    update = "5m"
  }

  tags = { Name = "${var.name}-default" }
}

resource "aws_internet_gateway" "this" {
  vpc_id = aws_vpc.this.id
}

resource "aws_route_table" "public" {
  vpc_id = aws_vpc.this.id

  route {
    cidr_block = "0.0.0.0/0"
    gateway_id = aws_internet_gateway.this.id
  }

  route {
    ipv6_cidr_block = "::/0"
    gateway_id      = aws_internet_gateway.this.id
  }

  tags = { Name = "${var.name}-public" }
}

resource "aws_network_acl" "public" {
  count = var.public_dedicated_network_acl ? 1 : 0

  vpc_id     = aws_vpc.this.id
  subnet_ids = aws_subnet.public[*].id

  tags = { Name = "${var.name}-public" }
}

resource "aws_network_acl_rule" "public_inbound" {
  count = var.public_dedicated_network_acl ? length(var.public_inbound_acl_rules) : 0

  network_acl_id = aws_network_acl.public[0].id

  egress      = false
  rule_number = var.public_inbound_acl_rules[count.index]["rule_number"]
  rule_action = var.public_inbound_acl_rules[count.index]["rule_action"]
  from_port   = lookup(var.public_inbound_acl_rules[count.index], "from_port", null)
  to_port     = lookup(var.public_inbound_acl_rules[count.index], "to_port", null)
  icmp_code   = lookup(var.public_inbound_acl_rules[count.index], "icmp_code", null)
  icmp_type   = lookup(var.public_inbound_acl_rules[count.index], "icmp_type", null)
  protocol    = var.public_inbound_acl_rules[count.index]["protocol"]
  cidr_block  = lookup(var.public_inbound_acl_rules[count.index], "cidr_block", null)
}

resource "aws_network_acl_rule" "public_outbound" {
  count = var.public_dedicated_network_acl ? length(var.public_outbound_acl_rules) : 0

  network_acl_id = aws_network_acl.public[0].id

  egress      = true
  rule_number = var.public_outbound_acl_rules[count.index]["rule_number"]
  rule_action = var.public_outbound_acl_rules[count.index]["rule_action"]
  from_port   = lookup(var.public_outbound_acl_rules[count.index], "from_port", null)
  to_port     = lookup(var.public_outbound_acl_rules[count.index], "to_port", null)
  protocol    = var.public_outbound_acl_rules[count.index]["protocol"]
  cidr_block  = lookup(var.public_outbound_acl_rules[count.index], "cidr_block", null)
}

# A small, fully inline NACL for the isolated tier: rules as blocks.
resource "aws_network_acl" "isolated" {
  vpc_id = aws_vpc.this.id

  ingress {
    protocol   = "tcp"
    rule_no    = 100
    action     = "allow"
    cidr_block = aws_vpc.this.cidr_block
    from_port  = 5432
    to_port    = 5432
  }

  egress {
    protocol   = "tcp"
    rule_no    = 100
    action     = "allow"
    cidr_block = aws_vpc.this.cidr_block
    from_port  = 1024
    to_port    = 65535
  }

  tags = { Name = "${var.name}-isolated" }
}

output "default_network_acl_id" {
  value = try(aws_default_network_acl.this[0].id, null)
}

output "public_network_acl_arn" {
  value = try(aws_network_acl.public[0].arn, "")
}

output "isolated_network_acl_id" {
  value = aws_network_acl.isolated.id
}
