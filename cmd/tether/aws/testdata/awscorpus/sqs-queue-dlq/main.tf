# Queues the way the SQS module's examples call it: standard and FIFO queues
# with dead-letter queues, queue policies from maps of objects, and one queue
# switched off by its create toggle.

module "orders" {
  source = "../_modules/sqs-queue"

  name                       = "orders"
  create_dlq                 = true
  max_receive_count          = 3
  visibility_timeout_seconds = 60

  queue_policy_statements = {
    sns = {
      sid     = "SNSPublish"
      actions = ["sqs:SendMessage"]
      principals = [{
        type        = "Service"
        identifiers = ["sns.amazonaws.com"]
      }]
      conditions = [{
        test     = "ArnEquals"
        variable = "aws:SourceArn"
        values   = ["arn:aws:sns:us-east-1:123456789012:orders"]
      }]
    }
  }

  tags = { Domain = "orders" }
}

module "payments_fifo" {
  source = "../_modules/sqs-queue"

  name                      = "payments"
  fifo_queue                = true
  create_dlq                = true
  message_retention_seconds = 345600
}

module "disabled" {
  source = "../_modules/sqs-queue"

  create = false
  name   = "never-created"
}

# A plain queue with only a name: every computed attribute left to the provider.
resource "aws_sqs_queue" "bare" {
  name = "corpus-bare"
}

resource "aws_sqs_queue" "delayed" {
  name                      = "corpus-delayed"
  delay_seconds             = 90
  max_message_size          = 2048
  receive_wait_time_seconds = 10

  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "OwnerOnly"
      Effect    = "Allow"
      Principal = { AWS = "arn:aws:iam::123456789012:root" }
      Action    = "sqs:*"
      Resource  = "arn:aws:sqs:us-east-1:123456789012:corpus-delayed"
    }]
  })
}

output "orders_queue_url" {
  value = module.orders.queue_url
}

output "orders_dlq_arn" {
  value = module.orders.dead_letter_queue_arn
}

output "payments_queue_name" {
  value = module.payments_fifo.queue_name
}

output "disabled_queue_arn" {
  value = module.disabled.queue_arn
}
