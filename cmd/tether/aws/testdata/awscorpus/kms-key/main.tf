# A KMS key as the kms module writes it: key policy from a policy document with
# statements switched by lists of ARNs (dynamic statement blocks), aliases from
# for_each over a set, grants from a map of objects, and a replica-free
# multi-region toggle.

data "aws_partition" "current" {}

variable "create" {
  type    = bool
  default = true
}

variable "description" {
  type    = string
  default = "Corpus application key"
}

variable "account_id" {
  type    = string
  default = "123456789012"
}

variable "key_administrators" {
  type    = list(string)
  default = ["arn:aws:iam::123456789012:role/admin"]
}

variable "key_users" {
  type    = list(string)
  default = ["arn:aws:iam::123456789012:role/app", "arn:aws:iam::123456789012:role/worker"]
}

variable "key_service_users" {
  type    = list(string)
  default = []
}

variable "aliases" {
  type    = list(string)
  default = ["corpus/app", "corpus/app-legacy"]
}

variable "grants" {
  type = map(object({
    grantee_principal  = string
    operations         = list(string)
    retiring_principal = optional(string)
    constraints = optional(list(object({
      encryption_context_equals = optional(map(string))
      encryption_context_subset = optional(map(string))
    })), [])
  }))
  default = {
    lambda = {
      grantee_principal = "arn:aws:iam::123456789012:role/lambda"
      operations        = ["Encrypt", "Decrypt", "GenerateDataKey"]
      constraints = [{
        encryption_context_equals = { Department = "Finance" }
      }]
    }
  }
}

data "aws_iam_policy_document" "this" {
  count = var.create ? 1 : 0

  statement {
    sid       = "Default"
    actions   = ["kms:*"]
    resources = ["*"]

    principals {
      type        = "AWS"
      identifiers = ["arn:${data.aws_partition.current.partition}:iam::${var.account_id}:root"]
    }
  }

  dynamic "statement" {
    for_each = length(var.key_administrators) > 0 ? [1] : []

    content {
      sid = "KeyAdministration"
      actions = [
        "kms:Create*", "kms:Describe*", "kms:Enable*", "kms:List*", "kms:Put*", "kms:Update*",
        "kms:Revoke*", "kms:Disable*", "kms:Get*", "kms:Delete*", "kms:TagResource", "kms:UntagResource",
        "kms:ScheduleKeyDeletion", "kms:CancelKeyDeletion",
      ]
      resources = ["*"]

      principals {
        type        = "AWS"
        identifiers = var.key_administrators
      }
    }
  }

  dynamic "statement" {
    for_each = length(var.key_users) > 0 ? [1] : []

    content {
      sid       = "KeyUsage"
      actions   = ["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey"]
      resources = ["*"]

      principals {
        type        = "AWS"
        identifiers = var.key_users
      }
    }
  }

  dynamic "statement" {
    for_each = length(var.key_service_users) > 0 ? [1] : []

    content {
      sid       = "KeyServiceUsage"
      actions   = ["kms:CreateGrant", "kms:ListGrants", "kms:RevokeGrant"]
      resources = ["*"]

      principals {
        type        = "AWS"
        identifiers = var.key_service_users
      }

      condition {
        test     = "Bool"
        variable = "kms:GrantIsForAWSResource"
        values   = [true]
      }
    }
  }
}

resource "aws_kms_key" "this" {
  count = var.create ? 1 : 0

  description              = var.description
  key_usage                = "ENCRYPT_DECRYPT"
  customer_master_key_spec = "SYMMETRIC_DEFAULT"
  deletion_window_in_days  = 7
  enable_key_rotation      = true
  rotation_period_in_days  = 180
  is_enabled               = true
  multi_region             = false
  policy                   = data.aws_iam_policy_document.this[0].json

  tags = { Name = var.aliases[0] }
}

# A key with no policy at all: the provider computes it.
resource "aws_kms_key" "default_policy" {
  description             = "Key with the default key policy"
  deletion_window_in_days = 7
}

resource "aws_kms_alias" "this" {
  for_each = { for k in toset(var.aliases) : k => k if var.create }

  name          = "alias/${each.value}"
  target_key_id = aws_kms_key.this[0].key_id
}

resource "aws_kms_grant" "this" {
  for_each = { for k, v in var.grants : k => v if var.create }

  name               = each.key
  key_id             = aws_kms_key.this[0].key_id
  grantee_principal  = each.value.grantee_principal
  operations         = each.value.operations
  retiring_principal = each.value.retiring_principal

  dynamic "constraints" {
    for_each = each.value.constraints

    content {
      encryption_context_equals = constraints.value.encryption_context_equals
      encryption_context_subset = constraints.value.encryption_context_subset
    }
  }
}

output "key_arn" {
  value = try(aws_kms_key.this[0].arn, null)
}

output "key_id" {
  value = try(aws_kms_key.this[0].key_id, null)
}

output "aliases" {
  value = { for k, a in aws_kms_alias.this : k => a.arn }
}

output "grant_ids" {
  value = { for k, g in aws_kms_grant.this : k => g.grant_id }
}
