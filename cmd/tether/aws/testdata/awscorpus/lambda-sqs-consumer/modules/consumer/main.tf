# One queue-driven consumer: its queue (from the shared module), a function, an
# event source mapping whose filter_criteria holds dynamic "filter" blocks, and
# an execution role whose queue permissions come from a policy document.

variable "name" {
  type = string
}

variable "batch_size" {
  type    = number
  default = 10
}

variable "maximum_concurrency" {
  type    = number
  default = null
}

variable "filter_patterns" {
  type    = list(any)
  default = []
}

variable "memory_size" {
  type    = number
  default = 128
}

module "queue" {
  source = "../../../_modules/sqs-queue"

  name                       = var.name
  create_dlq                 = true
  visibility_timeout_seconds = 180
}

data "aws_iam_policy_document" "consume" {
  statement {
    actions = [
      "sqs:ReceiveMessage",
      "sqs:DeleteMessage",
      "sqs:GetQueueAttributes",
    ]
    resources = [module.queue.queue_arn]
  }
}

module "role" {
  source = "../../../_modules/iam-role"

  name             = "${var.name}-consumer"
  trusted_services = ["lambda.amazonaws.com"]
  policy_arns      = { basic = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole" }
  inline_policies  = { consume = data.aws_iam_policy_document.consume.json }
}

resource "aws_lambda_function" "this" {
  function_name = "${var.name}-consumer"
  role          = module.role.arn
  handler       = "index.handler"
  runtime       = "nodejs20.x"
  memory_size   = var.memory_size
  timeout       = 30
  s3_bucket     = "corpus-artifacts"
  s3_key        = "functions/${var.name}-consumer.zip"

  environment {
    variables = {
      QUEUE_URL = module.queue.queue_url
    }
  }
}

resource "aws_lambda_event_source_mapping" "this" {
  event_source_arn                   = module.queue.queue_arn
  function_name                      = aws_lambda_function.this.arn
  batch_size                         = var.batch_size
  maximum_batching_window_in_seconds = var.batch_size > 10 ? 5 : null
  function_response_types            = ["ReportBatchItemFailures"]

  dynamic "scaling_config" {
    for_each = var.maximum_concurrency != null ? [var.maximum_concurrency] : []
    content {
      maximum_concurrency = scaling_config.value
    }
  }

  filter_criteria {
    dynamic "filter" {
      for_each = var.filter_patterns
      content {
        pattern = jsonencode(filter.value)
      }
    }
  }
}

output "queue_url" {
  value = module.queue.queue_url
}

output "function_arn" {
  value = aws_lambda_function.this.arn
}

output "mapping_uuid" {
  value = aws_lambda_event_source_mapping.this.uuid
}
