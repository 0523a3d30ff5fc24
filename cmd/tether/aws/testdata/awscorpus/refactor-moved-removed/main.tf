# Refactoring blocks as module authors ship them between major versions:
# resources renamed, count turned into for_each, a resource moved into a
# module, and resources dropped from management with removed blocks. On a
# fresh state every block is a no-op; they must still validate and plan.

variable "queues" {
  type    = set(string)
  default = ["alpha", "beta"]
}

# Was aws_s3_bucket.bucket in v1.
resource "aws_s3_bucket" "this" {
  bucket        = "corpus-refactor"
  force_destroy = true
}

moved {
  from = aws_s3_bucket.bucket
  to   = aws_s3_bucket.this
}

# Was count-based (aws_sqs_queue.queue[0], [1]) in v1.
resource "aws_sqs_queue" "this" {
  for_each = var.queues

  name = "corpus-refactor-${each.key}"
}

moved {
  from = aws_sqs_queue.queue[0]
  to   = aws_sqs_queue.this["alpha"]
}

moved {
  from = aws_sqs_queue.queue[1]
  to   = aws_sqs_queue.this["beta"]
}

# Was a root resource, now lives in the shared log-group module.
module "logs" {
  source = "../_modules/log-group"

  name              = "/corpus/refactor"
  retention_in_days = 7
}

moved {
  from = aws_cloudwatch_log_group.refactor
  to   = module.logs.aws_cloudwatch_log_group.this[0]
}

# Was a toggled single resource, now unconditional.
resource "aws_sns_topic" "this" {
  name = "corpus-refactor"
}

moved {
  from = aws_sns_topic.this[0]
  to   = aws_sns_topic.this
}

# The v1 module created an IAM policy this version no longer manages: forget it
# without destroying it.
removed {
  from = aws_iam_policy.legacy

  lifecycle {
    destroy = false
  }
}

# And a parameter that should be destroyed when it is removed.
removed {
  from = aws_ssm_parameter.obsolete

  lifecycle {
    destroy = true
  }
}

output "queue_arns" {
  value = { for k, q in aws_sqs_queue.this : k => q.arn }
}

output "log_group" {
  value = module.logs.name
}
