# A service role in the style of the iam "assumable role" submodules: a toggle,
# trust built from a policy document with dynamic statements, managed policies
# attached with for_each over a map, inline policies as JSON strings.

variable "create" {
  type    = bool
  default = true
}

variable "name" {
  type = string
}

variable "path" {
  type    = string
  default = "/"
}

variable "trusted_services" {
  type    = list(string)
  default = []
}

variable "trusted_role_arns" {
  type    = list(string)
  default = []
}

variable "policy_arns" {
  description = "Managed policies to attach, keyed by a static name so for_each keys are known at plan time."
  type        = map(string)
  default     = {}
}

variable "inline_policies" {
  type    = map(string)
  default = {}
}

variable "max_session_duration" {
  type    = number
  default = 3600

  validation {
    condition     = var.max_session_duration >= 3600 && var.max_session_duration <= 43200
    error_message = "max_session_duration must be between 3600 and 43200 seconds."
  }
}

variable "create_instance_profile" {
  type    = bool
  default = false
}

variable "tags" {
  type    = map(string)
  default = {}
}

data "aws_iam_policy_document" "assume" {
  count = var.create ? 1 : 0

  dynamic "statement" {
    for_each = length(var.trusted_services) > 0 ? [1] : []
    content {
      sid     = "TrustServices"
      effect  = "Allow"
      actions = ["sts:AssumeRole"]

      principals {
        type        = "Service"
        identifiers = var.trusted_services
      }
    }
  }

  dynamic "statement" {
    for_each = length(var.trusted_role_arns) > 0 ? [1] : []
    content {
      sid     = "TrustRoles"
      effect  = "Allow"
      actions = ["sts:AssumeRole", "sts:TagSession"]

      principals {
        type        = "AWS"
        identifiers = var.trusted_role_arns
      }
    }
  }
}

resource "aws_iam_role" "this" {
  count = var.create ? 1 : 0

  name                 = var.name
  path                 = var.path
  max_session_duration = var.max_session_duration
  assume_role_policy   = data.aws_iam_policy_document.assume[0].json

  force_detach_policies = true
  tags                  = var.tags
}

resource "aws_iam_role_policy_attachment" "this" {
  for_each = { for k, v in var.policy_arns : k => v if var.create }

  role       = aws_iam_role.this[0].name
  policy_arn = each.value
}

resource "aws_iam_role_policy" "this" {
  for_each = { for k, v in var.inline_policies : k => v if var.create }

  name   = each.key
  role   = aws_iam_role.this[0].id
  policy = each.value
}

resource "aws_iam_instance_profile" "this" {
  count = var.create && var.create_instance_profile ? 1 : 0

  name = var.name
  path = var.path
  role = aws_iam_role.this[0].name
  tags = var.tags
}

output "arn" {
  value = try(aws_iam_role.this[0].arn, "")
}

output "name" {
  value = try(aws_iam_role.this[0].name, "")
}

output "unique_id" {
  value = try(aws_iam_role.this[0].unique_id, "")
}

output "instance_profile_arn" {
  value = try(aws_iam_instance_profile.this[0].arn, null)
}
