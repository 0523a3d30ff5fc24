# Data sources that call AWS at plan time (caller identity, availability
# zones, an AMI lookup) feeding counts, module for_each and policies, as VPC
# and compute modules use them. Plain terraform cannot plan this offline: it
# needs the recording wrapper, which answers ReadDataSource.

variable "az_count" {
  type    = number
  default = 2

  validation {
    condition     = var.az_count >= 1 && var.az_count <= 3
    error_message = "az_count must be between 1 and 3."
  }
}

data "aws_caller_identity" "current" {}
data "aws_partition" "current" {}
data "aws_region" "current" {}

data "aws_availability_zones" "available" {
  state = "available"

  filter {
    name   = "opt-in-status"
    values = ["opt-in-not-required"]
  }
}

data "aws_ami" "al2023" {
  most_recent = true
  owners      = ["amazon"]

  filter {
    name   = "name"
    values = ["al2023-ami-*-x86_64"]
  }
}

locals {
  account_id = data.aws_caller_identity.current.account_id
  azs        = slice(data.aws_availability_zones.available.names, 0, var.az_count)
}

resource "aws_vpc" "this" {
  cidr_block = "10.100.0.0/16"
  tags       = { Name = "corpus-azs", Account = local.account_id }
}

# Module for_each over a data source's results.
module "zone" {
  source   = "./modules/az-subnet"
  for_each = { for i, az in local.azs : az => i }

  vpc_id       = aws_vpc.this.id
  az           = each.key
  public_cidr  = cidrsubnet(aws_vpc.this.cidr_block, 8, each.value)
  private_cidr = cidrsubnet(aws_vpc.this.cidr_block, 8, each.value + 100)
}

data "aws_iam_policy_document" "key" {
  statement {
    sid       = "Root"
    actions   = ["kms:*"]
    resources = ["*"]

    principals {
      type        = "AWS"
      identifiers = ["arn:${data.aws_partition.current.partition}:iam::${local.account_id}:root"]
    }
  }

  statement {
    sid       = "Logs"
    actions   = ["kms:Encrypt*", "kms:Decrypt*", "kms:GenerateDataKey*", "kms:Describe*"]
    resources = ["*"]

    principals {
      type        = "Service"
      identifiers = ["logs.${data.aws_region.current.name}.amazonaws.com"]
    }

    condition {
      test     = "ArnLike"
      variable = "kms:EncryptionContext:aws:logs:arn"
      values   = ["arn:${data.aws_partition.current.partition}:logs:${data.aws_region.current.name}:${local.account_id}:log-group:*"]
    }
  }
}

resource "aws_kms_key" "logs" {
  description             = "Logs in ${local.account_id}"
  deletion_window_in_days = 7
  policy                  = data.aws_iam_policy_document.key.json
}

resource "aws_ssm_parameter" "ami" {
  name           = "/corpus/ami/al2023"
  type           = "String"
  insecure_value = data.aws_ami.al2023.id
}

output "account_id" {
  value = local.account_id
}

output "subnets" {
  value = { for az, m in module.zone : az => [m.public_subnet_id, m.private_subnet_id] }
}
