# A CloudWatch log group with optional metric filters from a map of objects.

variable "create" {
  type    = bool
  default = true
}

variable "name" {
  type = string
}

variable "retention_in_days" {
  type    = number
  default = 14

  validation {
    condition     = contains([0, 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653], var.retention_in_days)
    error_message = "retention_in_days must be one of the values CloudWatch Logs accepts."
  }
}

variable "kms_key_id" {
  type    = string
  default = null
}

variable "metric_filters" {
  type = map(object({
    pattern   = string
    namespace = optional(string, "Corpus")
    value     = optional(string, "1")
    unit      = optional(string)
  }))
  default = {}
}

variable "tags" {
  type    = map(string)
  default = {}
}

resource "aws_cloudwatch_log_group" "this" {
  count = var.create ? 1 : 0

  name              = var.name
  retention_in_days = var.retention_in_days
  kms_key_id        = var.kms_key_id
  skip_destroy      = false
  tags              = var.tags
}

resource "aws_cloudwatch_log_metric_filter" "this" {
  for_each = { for k, v in var.metric_filters : k => v if var.create }

  name           = each.key
  pattern        = each.value.pattern
  log_group_name = aws_cloudwatch_log_group.this[0].name

  metric_transformation {
    name      = each.key
    namespace = each.value.namespace
    value     = each.value.value
    unit      = each.value.unit
  }
}

output "name" {
  value = try(aws_cloudwatch_log_group.this[0].name, null)
}

output "arn" {
  value = try(aws_cloudwatch_log_group.this[0].arn, null)
}
