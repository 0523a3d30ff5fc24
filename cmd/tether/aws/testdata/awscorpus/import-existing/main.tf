# Adopting existing objects with import blocks, as teams do when they bring
# hand-made resources under management: a single import, imports with
# for_each over a map (into for_each resources), and an import into a module.
# Importing reads from AWS: plain terraform cannot plan this offline; the
# recording wrapper answers ImportResourceState and ReadResource.

variable "existing_queues" {
  type = map(string)
  default = {
    legacy-orders  = "https://sqs.us-east-1.amazonaws.com/123456789012/legacy-orders"
    legacy-billing = "https://sqs.us-east-1.amazonaws.com/123456789012/legacy-billing"
  }
}

import {
  to = aws_s3_bucket.legacy
  id = "corpus-legacy-bucket"
}

resource "aws_s3_bucket" "legacy" {
  bucket = "corpus-legacy-bucket"
}

import {
  for_each = var.existing_queues
  to       = aws_sqs_queue.legacy[each.key]
  id       = each.value
}

resource "aws_sqs_queue" "legacy" {
  for_each = var.existing_queues

  name = each.key
}

import {
  to = module.log_group.aws_cloudwatch_log_group.this[0]
  id = "/corpus/legacy"
}

module "log_group" {
  source = "../_modules/log-group"

  name              = "/corpus/legacy"
  retention_in_days = 30
}

import {
  to = aws_iam_role.legacy
  id = "corpus-legacy-role"
}

resource "aws_iam_role" "legacy" {
  name = "corpus-legacy-role"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "ec2.amazonaws.com" }
      Action    = "sts:AssumeRole"
    }]
  })
}

output "queue_urls" {
  value = { for k, q in aws_sqs_queue.legacy : k => q.url }
}
