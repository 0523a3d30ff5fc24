# Bucket notifications in the s3-bucket module's notification submodule shape:
# queue, topic and Lambda destinations from maps of objects rendered as
# dynamic blocks, with the destination policies (written as policy documents)
# and the Lambda permission created before the notification.

variable "bucket" {
  type    = string
  default = "corpus-uploads"
}

variable "sqs_notifications" {
  type = map(object({
    events        = list(string)
    filter_prefix = optional(string)
    filter_suffix = optional(string)
  }))
  default = {
    images = { events = ["s3:ObjectCreated:*"], filter_prefix = "images/", filter_suffix = ".jpg" }
  }
}

variable "sns_notifications" {
  type = map(object({
    events        = list(string)
    filter_prefix = optional(string)
  }))
  default = {
    deletes = { events = ["s3:ObjectRemoved:*"] }
  }
}

variable "lambda_notifications" {
  type = map(object({
    function_arn  = string
    events        = list(string)
    filter_suffix = optional(string)
  }))
  default = {
    thumbnails = {
      function_arn  = "arn:aws:lambda:us-east-1:123456789012:function:thumbnailer"
      events        = ["s3:ObjectCreated:Put"]
      filter_suffix = ".png"
    }
  }
}

variable "eventbridge" {
  type    = bool
  default = true
}

resource "aws_s3_bucket" "this" {
  bucket        = var.bucket
  force_destroy = true
}

resource "aws_sqs_queue" "this" {
  for_each = var.sqs_notifications
  name     = "${var.bucket}-${each.key}"
}

resource "aws_sns_topic" "this" {
  for_each = var.sns_notifications
  name     = "${var.bucket}-${each.key}"
}

data "aws_iam_policy_document" "sqs" {
  for_each = var.sqs_notifications

  statement {
    sid       = "AllowBucket"
    effect    = "Allow"
    actions   = ["sqs:SendMessage"]
    resources = [aws_sqs_queue.this[each.key].arn]

    principals {
      type        = "Service"
      identifiers = ["s3.amazonaws.com"]
    }

    condition {
      test     = "ArnEquals"
      variable = "aws:SourceArn"
      values   = [aws_s3_bucket.this.arn]
    }
  }
}

resource "aws_sqs_queue_policy" "this" {
  for_each = var.sqs_notifications

  queue_url = aws_sqs_queue.this[each.key].id
  policy    = data.aws_iam_policy_document.sqs[each.key].json
}

data "aws_iam_policy_document" "sns" {
  for_each = var.sns_notifications

  statement {
    sid       = "AllowBucket"
    actions   = ["sns:Publish"]
    resources = [aws_sns_topic.this[each.key].arn]

    principals {
      type        = "Service"
      identifiers = ["s3.amazonaws.com"]
    }

    condition {
      test     = "ArnEquals"
      variable = "aws:SourceArn"
      values   = [aws_s3_bucket.this.arn]
    }
  }
}

resource "aws_sns_topic_policy" "this" {
  for_each = var.sns_notifications

  arn    = aws_sns_topic.this[each.key].arn
  policy = data.aws_iam_policy_document.sns[each.key].json
}

resource "aws_lambda_permission" "allow" {
  for_each = var.lambda_notifications

  statement_id_prefix = "AllowExecutionFromS3-"
  action              = "lambda:InvokeFunction"
  function_name       = each.value.function_arn
  principal           = "s3.amazonaws.com"
  source_arn          = aws_s3_bucket.this.arn
}

resource "aws_s3_bucket_notification" "this" {
  bucket      = aws_s3_bucket.this.id
  eventbridge = var.eventbridge

  dynamic "queue" {
    for_each = var.sqs_notifications
    content {
      id            = queue.key
      queue_arn     = aws_sqs_queue.this[queue.key].arn
      events        = queue.value.events
      filter_prefix = queue.value.filter_prefix
      filter_suffix = queue.value.filter_suffix
    }
  }

  dynamic "topic" {
    for_each = var.sns_notifications
    content {
      id            = topic.key
      topic_arn     = aws_sns_topic.this[topic.key].arn
      events        = topic.value.events
      filter_prefix = topic.value.filter_prefix
    }
  }

  dynamic "lambda_function" {
    for_each = var.lambda_notifications
    content {
      id                  = lambda_function.key
      lambda_function_arn = lambda_function.value.function_arn
      events              = lambda_function.value.events
      filter_suffix       = lambda_function.value.filter_suffix
    }
  }

  depends_on = [aws_lambda_permission.allow, aws_sqs_queue_policy.this, aws_sns_topic_policy.this]
}

output "notification_id" {
  value = aws_s3_bucket_notification.this.id
}
