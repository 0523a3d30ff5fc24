# A function as the lambda module configures one: code from S3, a layer,
# environment/vpc/dead-letter/tracing blocks present only when configured
# (dynamic), allowed triggers as permissions from a map of objects, an alias,
# async invoke config whose destinations are dynamic blocks inside a static
# block, a function URL with CORS, and its log group created first.

variable "function_name" {
  type    = string
  default = "corpus-handler"
}

variable "create_function" {
  type    = bool
  default = true
}

variable "runtime" {
  type    = string
  default = "python3.12"
}

variable "environment_variables" {
  type = map(string)
  default = {
    LOG_LEVEL  = "INFO"
    TABLE_NAME = "corpus-orders"
  }
}

variable "vpc_subnet_ids" {
  type    = list(string)
  default = null
}

variable "tracing_mode" {
  type    = string
  default = "Active"
}

variable "destination_on_failure" {
  type    = string
  default = "arn:aws:sqs:us-east-1:123456789012:corpus-handler-failures"
}

variable "destination_on_success" {
  type    = string
  default = null
}

variable "allowed_triggers" {
  type = map(object({
    principal  = optional(string)
    service    = optional(string)
    source_arn = optional(string)
  }))
  default = {
    APIGateway = {
      service    = "apigateway"
      source_arn = "arn:aws:execute-api:us-east-1:123456789012:abcdef1234/*/*/*"
    }
    EventBridge = {
      principal  = "events.amazonaws.com"
      source_arn = "arn:aws:events:us-east-1:123456789012:rule/corpus-nightly"
    }
  }
}

data "aws_partition" "current" {}

module "role" {
  source = "../_modules/iam-role"

  create           = var.create_function
  name             = "${var.function_name}-exec"
  trusted_services = ["lambda.amazonaws.com"]
  policy_arns = {
    basic  = "arn:${data.aws_partition.current.partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
    xray   = "arn:${data.aws_partition.current.partition}:iam::aws:policy/AWSXRayDaemonWriteAccess"
  }
}

resource "aws_cloudwatch_log_group" "lambda" {
  count = var.create_function ? 1 : 0

  name              = "/aws/lambda/${var.function_name}"
  retention_in_days = 14
}

resource "aws_lambda_layer_version" "deps" {
  count = var.create_function ? 1 : 0

  layer_name          = "${var.function_name}-deps"
  s3_bucket           = "corpus-artifacts"
  s3_key              = "layers/deps-1.4.2.zip"
  compatible_runtimes = [var.runtime]
  description         = "Third-party dependencies"

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_lambda_function" "this" {
  count = var.create_function ? 1 : 0

  function_name = var.function_name
  description   = "Corpus handler"
  role          = module.role.arn
  handler       = "app.handler"
  runtime       = var.runtime
  memory_size   = 256
  timeout       = 30
  architectures = ["arm64"]
  publish       = true

  s3_bucket = "corpus-artifacts"
  s3_key    = "functions/handler-2.3.0.zip"

  layers = [aws_lambda_layer_version.deps[0].arn]

  ephemeral_storage {
    size = 1024
  }

  dynamic "environment" {
    for_each = length(keys(var.environment_variables)) == 0 ? [] : [true]
    content {
      variables = var.environment_variables
    }
  }

  dynamic "vpc_config" {
    for_each = var.vpc_subnet_ids != null ? [true] : []
    content {
      subnet_ids         = var.vpc_subnet_ids
      security_group_ids = []
    }
  }

  dynamic "tracing_config" {
    for_each = var.tracing_mode == null ? [] : [true]
    content {
      mode = var.tracing_mode
    }
  }

  logging_config {
    log_format = "JSON"
    log_group  = aws_cloudwatch_log_group.lambda[0].name
  }

  depends_on = [aws_cloudwatch_log_group.lambda]
}

resource "aws_lambda_alias" "live" {
  count = var.create_function ? 1 : 0

  name             = "live"
  function_name    = aws_lambda_function.this[0].function_name
  function_version = aws_lambda_function.this[0].version

  lifecycle {
    ignore_changes = [function_version]
  }
}

resource "aws_lambda_function_event_invoke_config" "this" {
  count = var.create_function ? 1 : 0

  function_name                = aws_lambda_function.this[0].function_name
  qualifier                    = aws_lambda_alias.live[0].name
  maximum_event_age_in_seconds = 3600
  maximum_retry_attempts       = 1

  destination_config {
    dynamic "on_failure" {
      for_each = var.destination_on_failure != null ? [true] : []
      content {
        destination = var.destination_on_failure
      }
    }

    dynamic "on_success" {
      for_each = var.destination_on_success != null ? [true] : []
      content {
        destination = var.destination_on_success
      }
    }
  }
}

resource "aws_lambda_permission" "triggers" {
  for_each = { for k, v in var.allowed_triggers : k => v if var.create_function }

  statement_id  = "Allow${each.key}"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.this[0].function_name
  qualifier     = aws_lambda_alias.live[0].name
  principal     = try(each.value.principal, null) != null ? each.value.principal : format("%s.amazonaws.com", try(each.value.service, ""))
  source_arn    = try(each.value.source_arn, null)
}

resource "aws_lambda_function_url" "this" {
  count = var.create_function ? 1 : 0

  function_name      = aws_lambda_function.this[0].function_name
  qualifier          = aws_lambda_alias.live[0].name
  authorization_type = "AWS_IAM"

  cors {
    allow_credentials = true
    allow_origins     = ["https://app.example.com"]
    allow_methods     = ["GET", "POST"]
    max_age           = 86400
  }
}

output "lambda_function_arn" {
  value = try(aws_lambda_function.this[0].arn, "")
}

output "lambda_function_qualified_arn" {
  value = try(aws_lambda_function.this[0].qualified_arn, "")
}

output "lambda_function_url" {
  value = try(aws_lambda_function_url.this[0].function_url, "")
}

output "lambda_role_arn" {
  value = module.role.arn
}
