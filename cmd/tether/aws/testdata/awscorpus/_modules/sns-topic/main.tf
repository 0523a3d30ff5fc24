# An SNS topic with subscriptions from a map of objects (optional attributes
# with defaults) and a topic policy built from a policy document whose default
# statement is switched off by a variable.

variable "create" {
  type    = bool
  default = true
}

variable "name" {
  type = string
}

variable "kms_master_key_id" {
  type    = string
  default = null
}

variable "enable_default_topic_policy" {
  type    = bool
  default = true
}

variable "publisher_services" {
  type    = list(string)
  default = []
}

variable "subscriptions" {
  type = map(object({
    protocol             = string
    endpoint             = string
    raw_message_delivery = optional(bool, false)
    filter_policy        = optional(any)
    filter_policy_scope  = optional(string)
  }))
  default = {}
}

variable "tags" {
  type    = map(string)
  default = {}
}

data "aws_partition" "current" {}

resource "aws_sns_topic" "this" {
  count = var.create ? 1 : 0

  name              = var.name
  kms_master_key_id = var.kms_master_key_id
  tags              = var.tags
}

data "aws_iam_policy_document" "this" {
  count = var.create ? 1 : 0

  dynamic "statement" {
    for_each = var.enable_default_topic_policy ? [1] : []
    content {
      sid = "__default_statement_ID"
      actions = [
        "sns:Subscribe",
        "sns:SetTopicAttributes",
        "sns:RemovePermission",
        "sns:Publish",
        "sns:ListSubscriptionsByTopic",
        "sns:GetTopicAttributes",
        "sns:DeleteTopic",
        "sns:AddPermission",
      ]
      effect    = "Allow"
      resources = [aws_sns_topic.this[0].arn]

      principals {
        type        = "AWS"
        identifiers = ["*"]
      }

      condition {
        test     = "StringEquals"
        variable = "AWS:SourceOwner"
        values   = ["123456789012"]
      }
    }
  }

  dynamic "statement" {
    for_each = length(var.publisher_services) > 0 ? [1] : []
    content {
      sid       = "AllowServicesToPublish"
      actions   = ["sns:Publish"]
      resources = [aws_sns_topic.this[0].arn]

      principals {
        type        = "Service"
        identifiers = var.publisher_services
      }
    }
  }
}

resource "aws_sns_topic_policy" "this" {
  count = var.create ? 1 : 0

  arn    = aws_sns_topic.this[0].arn
  policy = data.aws_iam_policy_document.this[0].json
}

resource "aws_sns_topic_subscription" "this" {
  for_each = { for k, v in var.subscriptions : k => v if var.create }

  topic_arn            = aws_sns_topic.this[0].arn
  protocol             = each.value.protocol
  endpoint             = each.value.endpoint
  raw_message_delivery = each.value.raw_message_delivery
  filter_policy        = each.value.filter_policy == null ? null : jsonencode(each.value.filter_policy)
  filter_policy_scope  = each.value.filter_policy_scope
}

output "topic_arn" {
  value = try(aws_sns_topic.this[0].arn, null)
}

output "topic_name" {
  value = try(aws_sns_topic.this[0].name, null)
}

output "subscriptions" {
  value = aws_sns_topic_subscription.this
}
