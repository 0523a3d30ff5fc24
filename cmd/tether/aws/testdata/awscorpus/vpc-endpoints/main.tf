# VPC endpoints in the vpc module's vpc-endpoints submodule shape: gateway and
# interface endpoints from a map of objects, lookup()/try() defaults for the
# service type, subnets and policies, a security group whose ingress is a
# dynamic block, and a route table association for gateway endpoints.

variable "create" {
  type    = bool
  default = true
}

variable "endpoints" {
  type = any
  default = {
    s3 = {
      service         = "s3"
      service_type    = "Gateway"
      route_table_ids = true
      policy_actions  = ["s3:GetObject", "s3:ListBucket"]
    }
    dynamodb = {
      service      = "dynamodb"
      service_type = "Gateway"
    }
    ssm = {
      service             = "ssm"
      private_dns_enabled = true
    }
    ecr_api = {
      service             = "ecr.api"
      private_dns_enabled = true
      tags                = { Purpose = "images" }
    }
  }
}

data "aws_region" "current" {}

resource "aws_vpc" "this" {
  cidr_block           = "10.90.0.0/16"
  enable_dns_hostnames = true
}

resource "aws_subnet" "private" {
  count = 2

  vpc_id            = aws_vpc.this.id
  cidr_block        = cidrsubnet("10.90.0.0/16", 4, count.index)
  availability_zone = ["us-east-1a", "us-east-1b"][count.index]
}

resource "aws_route_table" "private" {
  vpc_id = aws_vpc.this.id
}

resource "aws_security_group" "endpoints" {
  count = var.create ? 1 : 0

  name_prefix = "vpc-endpoints-"
  description = "Interface endpoints"
  vpc_id      = aws_vpc.this.id

  dynamic "ingress" {
    for_each = { https = 443 }
    content {
      description = ingress.key
      from_port   = ingress.value
      to_port     = ingress.value
      protocol    = "tcp"
      cidr_blocks = [aws_vpc.this.cidr_block]
    }
  }

  lifecycle {
    create_before_destroy = true
  }
}

data "aws_iam_policy_document" "endpoint" {
  for_each = { for k, v in var.endpoints : k => v if can(v.policy_actions) }

  statement {
    actions   = each.value.policy_actions
    resources = ["*"]

    principals {
      type        = "*"
      identifiers = ["*"]
    }
  }
}

resource "aws_vpc_endpoint" "this" {
  for_each = { for k, v in var.endpoints : k => v if var.create }

  vpc_id            = aws_vpc.this.id
  service_name      = "com.amazonaws.${data.aws_region.current.name}.${each.value.service}"
  vpc_endpoint_type = lookup(each.value, "service_type", "Interface")
  auto_accept       = lookup(each.value, "auto_accept", null)

  security_group_ids  = lookup(each.value, "service_type", "Interface") == "Interface" ? [aws_security_group.endpoints[0].id] : null
  subnet_ids          = lookup(each.value, "service_type", "Interface") == "Interface" ? aws_subnet.private[*].id : null
  route_table_ids     = try(each.value.route_table_ids, false) ? [aws_route_table.private.id] : null
  policy              = try(data.aws_iam_policy_document.endpoint[each.key].json, null)
  private_dns_enabled = lookup(each.value, "service_type", "Interface") == "Interface" ? try(each.value.private_dns_enabled, null) : null

  tags = merge({ Name = each.key }, lookup(each.value, "tags", {}))

  timeouts {
    create = "10m"
    update = "10m"
    delete = "10m"
  }
}

resource "aws_vpc_endpoint_route_table_association" "dynamodb" {
  count = var.create ? 1 : 0

  route_table_id  = aws_route_table.private.id
  vpc_endpoint_id = aws_vpc_endpoint.this["dynamodb"].id
}

output "endpoints" {
  value = { for k, e in aws_vpc_endpoint.this : k => e.id }
}

output "s3_prefix_list" {
  value = try(aws_vpc_endpoint.this["s3"].prefix_list_id, null)
}
