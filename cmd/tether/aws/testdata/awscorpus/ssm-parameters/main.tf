# Parameters as the ssm-parameter module writes them: one map of objects with
# optional attributes decides String / StringList / SecureString, values may
# be lists (joined), secure values ignore later changes made outside, and a
# KMS key encrypts the secure ones.

variable "parameters" {
  type = map(object({
    value           = optional(string)
    values          = optional(list(string))
    type            = optional(string)
    secure          = optional(bool, false)
    description     = optional(string)
    tier            = optional(string, "Standard")
    data_type       = optional(string)
    allowed_pattern = optional(string)
    ignore_value    = optional(bool, false)
  }))
  default = {
    "/corpus/app/log_level"    = { value = "info", allowed_pattern = "^(debug|info|warn|error)$" }
    "/corpus/app/feature_list" = { values = ["search", "checkout", "beta-banner"] }
    "/corpus/app/db_password"  = { value = "not-a-real-secret", secure = true, ignore_value = true }
    "/corpus/app/api_token"    = { value = "also-not-real", secure = true, description = "Third-party API token" }
    "/corpus/app/ami"          = { value = "ami-0123456789abcdef0", data_type = "aws:ec2:image" }
    "/corpus/app/large_blob"   = { value = "x", tier = "Advanced" }
  }

  validation {
    condition     = alltrue([for k, p in var.parameters : startswith(k, "/")])
    error_message = "Parameter names must be absolute paths."
  }

  validation {
    condition     = alltrue([for p in values(var.parameters) : (p.value == null) != (p.values == null)])
    error_message = "Each parameter sets exactly one of value and values."
  }
}

resource "aws_kms_key" "ssm" {
  description             = "SSM SecureString parameters"
  deletion_window_in_days = 7
}

locals {
  normalized = {
    for name, p in var.parameters : name => merge(p, {
      type  = coalesce(p.type, p.secure ? "SecureString" : (p.values != null ? "StringList" : "String"))
      value = try(join(",", p.values), p.value)
    })
  }
}

resource "aws_ssm_parameter" "this" {
  for_each = { for k, p in local.normalized : k => p if !p.ignore_value }

  name            = each.key
  type            = each.value.type
  value           = each.value.type == "SecureString" ? each.value.value : null
  insecure_value  = each.value.type == "SecureString" ? null : each.value.value
  description     = each.value.description
  tier            = each.value.tier
  data_type       = each.value.data_type
  allowed_pattern = each.value.allowed_pattern
  key_id          = each.value.type == "SecureString" ? aws_kms_key.ssm.arn : null
  overwrite       = null

  tags = { Path = dirname(each.key) }
}

resource "aws_ssm_parameter" "ignore_value" {
  for_each = { for k, p in local.normalized : k => p if p.ignore_value }

  name        = each.key
  type        = each.value.type
  value       = each.value.value
  description = each.value.description
  key_id      = aws_kms_key.ssm.arn

  lifecycle {
    ignore_changes = [value, insecure_value]
  }
}

output "parameter_arns" {
  value = merge(
    { for k, p in aws_ssm_parameter.this : k => p.arn },
    { for k, p in aws_ssm_parameter.ignore_value : k => p.arn },
  )
}

output "parameter_versions" {
  value = { for k, p in aws_ssm_parameter.this : k => try(p.version, null) }
}
