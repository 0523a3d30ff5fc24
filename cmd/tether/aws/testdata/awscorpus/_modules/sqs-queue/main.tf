# An SQS queue with an optional dead-letter queue and queue policy, in the
# shape of the widely used SQS module: create toggles, redrive policy written
# with jsonencode, policy statements as a map of objects rendered by a policy
# document with nested dynamic blocks.

variable "create" {
  type    = bool
  default = true
}

variable "name" {
  type = string
}

variable "fifo_queue" {
  type    = bool
  default = false
}

variable "visibility_timeout_seconds" {
  type    = number
  default = null
}

variable "message_retention_seconds" {
  type    = number
  default = null
}

variable "kms_master_key_id" {
  type    = string
  default = null
}

variable "create_dlq" {
  type    = bool
  default = false
}

variable "max_receive_count" {
  type    = number
  default = 5
}

variable "queue_policy_statements" {
  type = map(object({
    sid     = optional(string)
    actions = list(string)
    principals = optional(list(object({
      type        = string
      identifiers = list(string)
    })), [])
    conditions = optional(list(object({
      test     = string
      variable = string
      values   = list(string)
    })), [])
  }))
  default = {}
}

variable "tags" {
  type    = map(string)
  default = {}
}

locals {
  name     = var.fifo_queue ? "${trimsuffix(var.name, ".fifo")}.fifo" : var.name
  dlq_name = var.fifo_queue ? "${trimsuffix(var.name, ".fifo")}-dlq.fifo" : "${var.name}-dlq"
}

resource "aws_sqs_queue" "this" {
  count = var.create ? 1 : 0

  name                       = local.name
  fifo_queue                 = var.fifo_queue ? true : null
  visibility_timeout_seconds = var.visibility_timeout_seconds
  message_retention_seconds  = var.message_retention_seconds

  kms_master_key_id       = var.kms_master_key_id
  sqs_managed_sse_enabled = var.kms_master_key_id != null ? null : true

  redrive_policy = var.create_dlq ? jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq[0].arn
    maxReceiveCount     = var.max_receive_count
  }) : null

  tags = var.tags
}

resource "aws_sqs_queue" "dlq" {
  count = var.create && var.create_dlq ? 1 : 0

  name                      = local.dlq_name
  fifo_queue                = var.fifo_queue ? true : null
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true

  tags = var.tags
}

resource "aws_sqs_queue_redrive_allow_policy" "dlq" {
  count = var.create && var.create_dlq ? 1 : 0

  queue_url = aws_sqs_queue.dlq[0].id
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.this[0].arn]
  })
}

data "aws_iam_policy_document" "this" {
  count = var.create && length(var.queue_policy_statements) > 0 ? 1 : 0

  dynamic "statement" {
    for_each = var.queue_policy_statements

    content {
      sid       = try(coalesce(statement.value.sid, statement.key))
      actions   = statement.value.actions
      resources = [aws_sqs_queue.this[0].arn]

      dynamic "principals" {
        for_each = statement.value.principals
        content {
          type        = principals.value.type
          identifiers = principals.value.identifiers
        }
      }

      dynamic "condition" {
        for_each = statement.value.conditions
        content {
          test     = condition.value.test
          variable = condition.value.variable
          values   = condition.value.values
        }
      }
    }
  }
}

resource "aws_sqs_queue_policy" "this" {
  count = var.create && length(var.queue_policy_statements) > 0 ? 1 : 0

  queue_url = aws_sqs_queue.this[0].id
  policy    = data.aws_iam_policy_document.this[0].json
}

output "queue_id" {
  value = try(aws_sqs_queue.this[0].id, null)
}

output "queue_arn" {
  value = try(aws_sqs_queue.this[0].arn, null)
}

output "queue_url" {
  value = try(aws_sqs_queue.this[0].url, null)
}

output "queue_name" {
  value = try(aws_sqs_queue.this[0].name, null)
}

output "dead_letter_queue_arn" {
  value = try(aws_sqs_queue.dlq[0].arn, null)
}
