# An event bus, rules and targets in the eventbridge module's shape: rules from
# a map of objects with event patterns as jsonencode()d maps, targets from a
# map of lists flattened into one map keyed "rule/target", dynamic nested
# blocks (input_transformer, retry_policy, dead_letter_config) in each target,
# an archive and a bus policy.

variable "bus_name" {
  type    = string
  default = "corpus-orders"
}

variable "create_bus" {
  type    = bool
  default = true
}

variable "rules" {
  type = map(object({
    description   = optional(string)
    event_pattern = optional(map(list(string)))
    schedule      = optional(string)
    state         = optional(string, "ENABLED")
  }))
  default = {
    orders = {
      description   = "Capture all order data"
      event_pattern = { source = ["corpus.orders"], "detail-type" = ["OrderPlaced", "OrderCancelled"] }
    }
    nightly = {
      description = "Nightly report (default bus only)"
      schedule    = "cron(0 3 * * ? *)"
    }
  }
}

variable "targets" {
  type = map(list(object({
    name              = string
    kind              = string
    input_transformer = optional(object({ paths = map(string), template = string }))
    retry_attempts    = optional(number)
    dead_letter       = optional(bool, false)
  })))
  default = {
    orders = [
      {
        name = "to-queue"
        kind = "queue"
        input_transformer = {
          paths    = { id = "$.detail.id", kind = "$.detail-type" }
          template = "{\"id\": <id>, \"kind\": <kind>}"
        }
        retry_attempts = 3
        dead_letter    = true
      },
      { name = "to-logs", kind = "logs" },
    ]
    nightly = [{ name = "report", kind = "queue" }]
  }
}

resource "aws_cloudwatch_event_bus" "this" {
  count = var.create_bus ? 1 : 0
  name  = var.bus_name
}

resource "aws_sqs_queue" "target" {
  name = "${var.bus_name}-target"
}

resource "aws_sqs_queue" "dlq" {
  name = "${var.bus_name}-dlq"
}

resource "aws_cloudwatch_log_group" "events" {
  name              = "/aws/events/${var.bus_name}"
  retention_in_days = 7
}

locals {
  # Scheduled rules only run on the default bus.
  rule_bus = { for k, r in var.rules : k => r.schedule != null ? "default" : try(aws_cloudwatch_event_bus.this[0].name, "default") }

  target_arns = {
    queue = aws_sqs_queue.target.arn
    logs  = aws_cloudwatch_log_group.events.arn
  }

  flat_targets = {
    for t in flatten([
      for rule, list in var.targets : [for target in list : merge(target, { rule = rule })]
    ]) : "${t.rule}/${t.name}" => t
  }
}

resource "aws_cloudwatch_event_rule" "this" {
  for_each = var.rules

  name                = "${var.bus_name}-${each.key}"
  event_bus_name      = local.rule_bus[each.key]
  description         = each.value.description
  event_pattern       = each.value.event_pattern != null ? jsonencode(each.value.event_pattern) : null
  schedule_expression = each.value.schedule
  state               = each.value.state
}

resource "aws_cloudwatch_event_target" "this" {
  for_each = local.flat_targets

  rule           = aws_cloudwatch_event_rule.this[each.value.rule].name
  event_bus_name = local.rule_bus[each.value.rule]
  target_id      = each.value.name
  arn            = lookup(local.target_arns, each.value.kind, null)

  dynamic "input_transformer" {
    for_each = each.value.input_transformer != null ? [each.value.input_transformer] : []

    content {
      input_paths    = input_transformer.value.paths
      input_template = input_transformer.value.template
    }
  }

  dynamic "retry_policy" {
    for_each = each.value.retry_attempts != null ? [each.value.retry_attempts] : []

    content {
      maximum_retry_attempts       = retry_policy.value
      maximum_event_age_in_seconds = 3600
    }
  }

  dynamic "dead_letter_config" {
    for_each = each.value.dead_letter ? [aws_sqs_queue.dlq.arn] : []

    content {
      arn = dead_letter_config.value
    }
  }
}

resource "aws_cloudwatch_event_archive" "this" {
  count = var.create_bus ? 1 : 0

  name             = "${var.bus_name}-archive"
  event_source_arn = aws_cloudwatch_event_bus.this[0].arn
  retention_days   = 14
  event_pattern    = jsonencode({ source = ["corpus.orders"] })
}

data "aws_iam_policy_document" "bus" {
  count = var.create_bus ? 1 : 0

  statement {
    sid       = "AllowOrgAccountsToPut"
    actions   = ["events:PutEvents"]
    resources = [aws_cloudwatch_event_bus.this[0].arn]

    principals {
      type        = "AWS"
      identifiers = ["arn:aws:iam::210987654321:root"]
    }
  }
}

resource "aws_cloudwatch_event_bus_policy" "this" {
  count = var.create_bus ? 1 : 0

  policy         = data.aws_iam_policy_document.bus[0].json
  event_bus_name = aws_cloudwatch_event_bus.this[0].name
}

output "eventbridge_bus_arn" {
  value = try(aws_cloudwatch_event_bus.this[0].arn, "")
}

output "eventbridge_rule_arns" {
  value = { for k, r in aws_cloudwatch_event_rule.this : k => r.arn }
}

output "eventbridge_target_ids" {
  value = { for k, t in aws_cloudwatch_event_target.this : k => t.target_id }
}
