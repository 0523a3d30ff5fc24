# An IAM role whose trust and inline policies come from policy document
# data sources, as public modules write them, and a toggled SNS topic.
variable "create_topic" {
  type    = bool
  default = true
}

data "aws_iam_policy_document" "assume" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["lambda.amazonaws.com"]
    }
  }
}

data "aws_iam_policy_document" "inline" {
  statement {
    sid       = "Publish"
    actions   = ["sns:Publish"]
    resources = [try(aws_sns_topic.events[0].arn, "*")]
  }
}

resource "aws_iam_role" "fn" {
  name               = "fn"
  assume_role_policy = data.aws_iam_policy_document.assume.json
  tags = {
    Team = "core"
  }
}

resource "aws_iam_role_policy" "inline" {
  name   = "publish"
  role   = aws_iam_role.fn.id
  policy = data.aws_iam_policy_document.inline.json
}

resource "aws_sns_topic" "events" {
  count = var.create_topic ? 1 : 0
  name  = "events"
}

output "role_arn" {
  value = aws_iam_role.fn.arn
}
