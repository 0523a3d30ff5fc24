# A topic with delivery policy, data protection off, subscriptions to queues
# and an HTTPS endpoint, a filter policy written with jsonencode, and a KMS key
# for encryption created by a count toggle.

variable "name" {
  type    = string
  default = "corpus-events"
}

variable "create_kms_key" {
  type    = bool
  default = true
}

variable "fifo_topic" {
  type    = bool
  default = false
}

resource "aws_kms_key" "sns" {
  count = var.create_kms_key ? 1 : 0

  description             = "SNS topic ${var.name}"
  deletion_window_in_days = 7
  enable_key_rotation     = true
}

resource "aws_sns_topic" "this" {
  name                        = var.fifo_topic ? "${var.name}.fifo" : var.name
  fifo_topic                  = var.fifo_topic
  content_based_deduplication = var.fifo_topic ? true : null
  kms_master_key_id           = try(aws_kms_key.sns[0].id, "alias/aws/sns")

  delivery_policy = jsonencode({
    http = {
      defaultHealthyRetryPolicy = {
        minDelayTarget     = 20
        maxDelayTarget     = 20
        numRetries         = 3
        numMaxDelayRetries = 0
        numNoDelayRetries  = 0
        numMinDelayRetries = 0
        backoffFunction    = "linear"
      }
      disableSubscriptionOverrides = false
    }
  })
}

resource "aws_sqs_queue" "audit" {
  name = "${var.name}-audit"
}

resource "aws_sqs_queue" "billing" {
  name = "${var.name}-billing"
}

locals {
  queue_subscriptions = {
    audit = {
      arn           = aws_sqs_queue.audit.arn
      filter_policy = null
    }
    billing = {
      arn           = aws_sqs_queue.billing.arn
      filter_policy = { event_type = ["invoice.created", "invoice.paid"] }
    }
  }
}

resource "aws_sns_topic_subscription" "queues" {
  for_each = local.queue_subscriptions

  topic_arn            = aws_sns_topic.this.arn
  protocol             = "sqs"
  endpoint             = each.value.arn
  raw_message_delivery = true
  filter_policy        = each.value.filter_policy != null ? jsonencode(each.value.filter_policy) : null
}

resource "aws_sns_topic_subscription" "webhook" {
  topic_arn              = aws_sns_topic.this.arn
  protocol               = "https"
  endpoint               = "https://hooks.example.com/sns"
  endpoint_auto_confirms = true
}

data "aws_iam_policy_document" "queue" {
  for_each = local.queue_subscriptions

  statement {
    actions   = ["sqs:SendMessage"]
    resources = [each.value.arn]

    principals {
      type        = "Service"
      identifiers = ["sns.amazonaws.com"]
    }

    condition {
      test     = "ArnEquals"
      variable = "aws:SourceArn"
      values   = [aws_sns_topic.this.arn]
    }
  }
}

resource "aws_sqs_queue_policy" "queues" {
  for_each = local.queue_subscriptions

  queue_url = each.key == "audit" ? aws_sqs_queue.audit.id : aws_sqs_queue.billing.id
  policy    = data.aws_iam_policy_document.queue[each.key].json
}

output "topic_arn" {
  value = aws_sns_topic.this.arn
}

output "subscription_arns" {
  value = { for k, s in aws_sns_topic_subscription.queues : k => s.arn }
}
