# Alarms in the cloudwatch module's metric-alarm style: simple alarms from a
# map of objects with optional attributes, a metric-math alarm whose
# metric_query blocks are dynamic with a nested dynamic "metric" block, an
# anomaly-detection alarm and a composite alarm over the others.

variable "create_metric_alarm" {
  type    = bool
  default = true
}

variable "alarms" {
  type = map(object({
    namespace           = string
    metric_name         = string
    threshold           = number
    comparison_operator = optional(string, "GreaterThanOrEqualToThreshold")
    evaluation_periods  = optional(number, 1)
    period              = optional(number, 300)
    statistic           = optional(string, "Average")
    dimensions          = optional(map(string), {})
    treat_missing_data  = optional(string, "missing")
  }))
  default = {
    queue-depth = {
      namespace   = "AWS/SQS"
      metric_name = "ApproximateNumberOfMessagesVisible"
      threshold   = 1000
      dimensions  = { QueueName = "orders" }
      statistic   = "Maximum"
    }
    lambda-errors = {
      namespace          = "AWS/Lambda"
      metric_name        = "Errors"
      threshold          = 1
      statistic          = "Sum"
      period             = 60
      evaluation_periods = 3
      dimensions         = { FunctionName = "corpus-handler" }
      treat_missing_data = "notBreaching"
    }
  }
}

variable "metric_queries" {
  type = any
  default = [
    {
      id          = "error_rate"
      expression  = "errors / requests * 100"
      label       = "Error rate"
      return_data = true
    },
    {
      id = "errors"
      metric = [{
        namespace   = "AWS/ApplicationELB"
        metric_name = "HTTPCode_Target_5XX_Count"
        period      = 60
        stat        = "Sum"
        dimensions  = { LoadBalancer = "app/corpus/0123456789abcdef" }
      }]
    },
    {
      id = "requests"
      metric = [{
        namespace   = "AWS/ApplicationELB"
        metric_name = "RequestCount"
        period      = 60
        stat        = "Sum"
        dimensions  = { LoadBalancer = "app/corpus/0123456789abcdef" }
      }]
    },
  ]
}

resource "aws_sns_topic" "alarms" {
  name = "corpus-alarms"
}

resource "aws_cloudwatch_metric_alarm" "this" {
  for_each = var.create_metric_alarm ? var.alarms : {}

  alarm_name          = each.key
  alarm_description   = "${each.value.metric_name} in ${each.value.namespace}"
  namespace           = each.value.namespace
  metric_name         = each.value.metric_name
  threshold           = each.value.threshold
  comparison_operator = each.value.comparison_operator
  evaluation_periods  = each.value.evaluation_periods
  period              = each.value.period
  statistic           = each.value.statistic
  dimensions          = each.value.dimensions
  treat_missing_data  = each.value.treat_missing_data

  alarm_actions = [aws_sns_topic.alarms.arn]
  ok_actions    = [aws_sns_topic.alarms.arn]
}

resource "aws_cloudwatch_metric_alarm" "error_rate" {
  count = var.create_metric_alarm ? 1 : 0

  alarm_name          = "alb-error-rate"
  comparison_operator = "GreaterThanThreshold"
  evaluation_periods  = 2
  threshold           = 5
  alarm_actions       = [aws_sns_topic.alarms.arn]

  dynamic "metric_query" {
    for_each = var.metric_queries

    content {
      id          = lookup(metric_query.value, "id")
      account_id  = lookup(metric_query.value, "account_id", null)
      label       = lookup(metric_query.value, "label", null)
      return_data = lookup(metric_query.value, "return_data", null)
      expression  = lookup(metric_query.value, "expression", null)

      dynamic "metric" {
        for_each = lookup(metric_query.value, "metric", [])

        content {
          metric_name = lookup(metric.value, "metric_name")
          namespace   = lookup(metric.value, "namespace")
          period      = lookup(metric.value, "period")
          stat        = lookup(metric.value, "stat")
          unit        = lookup(metric.value, "unit", null)
          dimensions  = lookup(metric.value, "dimensions", null)
        }
      }
    }
  }
}

resource "aws_cloudwatch_metric_alarm" "anomaly" {
  alarm_name          = "requests-anomaly"
  comparison_operator = "GreaterThanUpperThreshold"
  evaluation_periods  = 2
  threshold_metric_id = "band"

  metric_query {
    id          = "band"
    expression  = "ANOMALY_DETECTION_BAND(m1)"
    label       = "Requests (expected)"
    return_data = true
  }

  metric_query {
    id          = "m1"
    return_data = true

    metric {
      metric_name = "RequestCount"
      namespace   = "AWS/ApplicationELB"
      period      = 120
      stat        = "Sum"
      dimensions  = { LoadBalancer = "app/corpus/0123456789abcdef" }
    }
  }
}

resource "aws_cloudwatch_composite_alarm" "service" {
  count = var.create_metric_alarm ? 1 : 0

  alarm_name        = "corpus-service-health"
  alarm_description = "Any of the service's alarms"
  alarm_actions     = [aws_sns_topic.alarms.arn]

  alarm_rule = join(" OR ", [for a in aws_cloudwatch_metric_alarm.this : "ALARM(${a.alarm_name})"])

  actions_suppressor {
    alarm            = aws_cloudwatch_metric_alarm.anomaly.alarm_name
    extension_period = 60
    wait_period      = 60
  }
}

output "alarm_arns" {
  value = merge(
    { for k, a in aws_cloudwatch_metric_alarm.this : k => a.arn },
    { error_rate = try(aws_cloudwatch_metric_alarm.error_rate[0].arn, null) },
  )
}

output "composite_alarm_id" {
  value = try(aws_cloudwatch_composite_alarm.service[0].id, "")
}
