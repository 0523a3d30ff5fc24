# Policies written both ways: jsonencode() of HCL objects and the
# aws_iam_policy_document data source (with override/source documents), and
# an inline role policy. Statements come from a list of objects with optional
# attributes, and a policy_document output is read back with try().

variable "name" {
  type    = string
  default = "corpus-data"
}

variable "bucket_names" {
  type    = list(string)
  default = ["corpus-raw", "corpus-curated"]
}

variable "extra_statements" {
  type = list(object({
    sid       = string
    effect    = optional(string, "Allow")
    actions   = list(string)
    resources = optional(list(string), ["*"])
  }))
  default = [
    { sid = "Describe", actions = ["ec2:DescribeInstances", "ec2:DescribeTags"] },
    { sid = "NoDelete", effect = "Deny", actions = ["s3:DeleteBucket"] },
  ]
}

data "aws_partition" "current" {}
data "aws_region" "current" {}

locals {
  bucket_arns = [for b in var.bucket_names : "arn:${data.aws_partition.current.partition}:s3:::${b}"]
}

data "aws_iam_policy_document" "read" {
  statement {
    sid       = "List"
    actions   = ["s3:ListBucket"]
    resources = local.bucket_arns
  }

  statement {
    sid       = "Read"
    actions   = ["s3:GetObject", "s3:GetObjectVersion"]
    resources = [for a in local.bucket_arns : "${a}/*"]
  }
}

data "aws_iam_policy_document" "write_override" {
  source_policy_documents = [data.aws_iam_policy_document.read.json]

  override_policy_documents = [jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid      = "Read"
      Effect   = "Allow"
      Action   = ["s3:GetObject", "s3:PutObject"]
      Resource = [for a in local.bucket_arns : "${a}/*"]
    }]
  })]

  dynamic "statement" {
    for_each = var.extra_statements
    content {
      sid       = statement.value.sid
      effect    = statement.value.effect
      actions   = statement.value.actions
      resources = statement.value.resources
    }
  }
}

resource "aws_iam_policy" "read" {
  name   = "${var.name}-read"
  policy = data.aws_iam_policy_document.read.json
}

resource "aws_iam_policy" "write" {
  name_prefix = "${var.name}-write-"
  policy      = data.aws_iam_policy_document.write_override.json

  tags = { Region = data.aws_region.current.name }
}

resource "aws_iam_role" "glue" {
  name = "${var.name}-glue"

  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "glue.amazonaws.com" }
      Action    = "sts:AssumeRole"
    }]
  })

  inline_policy {
    name = "logs"
    policy = jsonencode({
      Version = "2012-10-17"
      Statement = [{
        Effect   = "Allow"
        Action   = ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]
        Resource = "arn:${data.aws_partition.current.partition}:logs:${data.aws_region.current.name}:*:*"
      }]
    })
  }
}

resource "aws_iam_role_policy" "kms" {
  name = "kms-decrypt"
  role = aws_iam_role.glue.id

  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = ["kms:Decrypt"]
      Resource = "*"
      Condition = {
        StringLike = { "kms:ViaService" = "s3.${data.aws_region.current.name}.amazonaws.com" }
      }
    }]
  })
}

resource "aws_iam_role_policy_attachment" "glue" {
  for_each = {
    read  = aws_iam_policy.read.arn
    write = aws_iam_policy.write.arn
  }

  role       = aws_iam_role.glue.name
  policy_arn = each.value
}

output "read_policy_json" {
  value = data.aws_iam_policy_document.read.json
}

output "write_policy_arn" {
  value = try(aws_iam_policy.write.arn, null)
}
