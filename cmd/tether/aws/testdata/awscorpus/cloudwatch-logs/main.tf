# Log groups for several services from one shared module (for_each over a map
# of objects), a stream, a subscription filter to a Lambda function, a query
# definition, a resource policy written with jsonencode, and a dashboard whose
# body is jsonencode()d from a for expression.

variable "services" {
  type = map(object({
    retention = optional(number, 14)
    filters   = optional(map(string), {})
  }))
  default = {
    api = {
      retention = 30
      filters   = { errors = "ERROR", timeouts = "\"Task timed out\"" }
    }
    worker    = {}
    scheduler = { retention = 7 }
  }
}

module "log_group" {
  source   = "../_modules/log-group"
  for_each = var.services

  name              = "/corpus/${each.key}"
  retention_in_days = each.value.retention
  metric_filters    = { for name, pattern in each.value.filters : "${each.key}-${name}" => { pattern = pattern } }
  tags              = { Service = each.key }
}

resource "aws_cloudwatch_log_stream" "api_audit" {
  name           = "audit"
  log_group_name = module.log_group["api"].name
}

resource "aws_cloudwatch_log_subscription_filter" "api_to_shipper" {
  name            = "ship-errors"
  log_group_name  = module.log_group["api"].name
  filter_pattern  = "ERROR"
  destination_arn = "arn:aws:lambda:us-east-1:123456789012:function:log-shipper"
  distribution    = "ByLogStream"
}

resource "aws_cloudwatch_query_definition" "errors" {
  name            = "corpus/errors-by-service"
  log_group_names = [for k, m in module.log_group : m.name]
  query_string    = <<-EOT
    fields @timestamp, @message
    | filter @message like /ERROR/
    | sort @timestamp desc
    | limit 50
  EOT
}

resource "aws_cloudwatch_log_resource_policy" "route53" {
  policy_name = "corpus-route53-query-logging"
  policy_document = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "route53.amazonaws.com" }
      Action    = ["logs:CreateLogStream", "logs:PutLogEvents"]
      Resource  = "arn:aws:logs:*:*:log-group:/aws/route53/*"
    }]
  })
}

resource "aws_cloudwatch_dashboard" "services" {
  dashboard_name = "corpus-services"
  dashboard_body = jsonencode({
    widgets = [
      for i, name in sort(keys(var.services)) : {
        type   = "log"
        x      = 0
        y      = i * 6
        width  = 24
        height = 6
        properties = {
          region = "us-east-1"
          title  = "${name} errors"
          query  = "SOURCE '/corpus/${name}' | fields @timestamp, @message | filter @message like /ERROR/"
          view   = "table"
        }
      }
    ]
  })
}

output "log_group_arns" {
  value = { for k, m in module.log_group : k => m.arn }
}

output "dashboard_arn" {
  value = aws_cloudwatch_dashboard.services.dashboard_arn
}
