# A provisioned table whose capacity an autoscaler owns: lifecycle
# ignore_changes on the capacity (also inside the indexes), application
# autoscaling targets and policies for the table and each index built with
# for_each over a map derived from a list.

variable "name" {
  type    = string
  default = "corpus-sessions"
}

variable "autoscaling_enabled" {
  type    = bool
  default = true
}

variable "autoscaling_defaults" {
  type = object({
    scale_in_cooldown  = optional(number, 0)
    scale_out_cooldown = optional(number, 0)
    target_value       = optional(number, 70)
  })
  default = {}
}

variable "autoscaling_read" {
  type    = map(number)
  default = { max_capacity = 50 }
}

variable "autoscaling_indexes" {
  type = map(map(number))
  default = {
    by-user = {
      read_max_capacity  = 30
      read_min_capacity  = 5
      write_max_capacity = 20
      write_min_capacity = 5
    }
  }
}

resource "aws_dynamodb_table" "this" {
  name           = var.name
  billing_mode   = "PROVISIONED"
  read_capacity  = 5
  write_capacity = 5
  hash_key       = "session_id"

  attribute {
    name = "session_id"
    type = "S"
  }

  attribute {
    name = "user_id"
    type = "S"
  }

  global_secondary_index {
    name            = "by-user"
    hash_key        = "user_id"
    projection_type = "ALL"
    read_capacity   = 5
    write_capacity  = 5
  }

  lifecycle {
    ignore_changes = [read_capacity, write_capacity]
  }
}

resource "aws_appautoscaling_target" "table_read" {
  count = var.autoscaling_enabled && length(var.autoscaling_read) > 0 ? 1 : 0

  max_capacity       = var.autoscaling_read["max_capacity"]
  min_capacity       = lookup(var.autoscaling_read, "min_capacity", 5)
  resource_id        = "table/${aws_dynamodb_table.this.name}"
  scalable_dimension = "dynamodb:table:ReadCapacityUnits"
  service_namespace  = "dynamodb"
}

resource "aws_appautoscaling_policy" "table_read" {
  count = var.autoscaling_enabled && length(var.autoscaling_read) > 0 ? 1 : 0

  name               = "DynamoDBReadCapacityUtilization:${aws_appautoscaling_target.table_read[0].resource_id}"
  policy_type        = "TargetTrackingScaling"
  resource_id        = aws_appautoscaling_target.table_read[0].resource_id
  scalable_dimension = aws_appautoscaling_target.table_read[0].scalable_dimension
  service_namespace  = aws_appautoscaling_target.table_read[0].service_namespace

  target_tracking_scaling_policy_configuration {
    predefined_metric_specification {
      predefined_metric_type = "DynamoDBReadCapacityUtilization"
    }

    scale_in_cooldown  = lookup(var.autoscaling_read, "scale_in_cooldown", var.autoscaling_defaults.scale_in_cooldown)
    scale_out_cooldown = lookup(var.autoscaling_read, "scale_out_cooldown", var.autoscaling_defaults.scale_out_cooldown)
    target_value       = lookup(var.autoscaling_read, "target_value", var.autoscaling_defaults.target_value)
  }
}

resource "aws_appautoscaling_target" "index_read" {
  for_each = var.autoscaling_enabled ? var.autoscaling_indexes : {}

  max_capacity       = each.value["read_max_capacity"]
  min_capacity       = each.value["read_min_capacity"]
  resource_id        = "table/${aws_dynamodb_table.this.name}/index/${each.key}"
  scalable_dimension = "dynamodb:index:ReadCapacityUnits"
  service_namespace  = "dynamodb"
}

resource "aws_appautoscaling_policy" "index_read" {
  for_each = var.autoscaling_enabled ? var.autoscaling_indexes : {}

  name               = "DynamoDBReadCapacityUtilization:${aws_appautoscaling_target.index_read[each.key].resource_id}"
  policy_type        = "TargetTrackingScaling"
  resource_id        = aws_appautoscaling_target.index_read[each.key].resource_id
  scalable_dimension = aws_appautoscaling_target.index_read[each.key].scalable_dimension
  service_namespace  = aws_appautoscaling_target.index_read[each.key].service_namespace

  target_tracking_scaling_policy_configuration {
    predefined_metric_specification {
      predefined_metric_type = "DynamoDBReadCapacityUtilization"
    }

    target_value = coalesce(lookup(each.value, "target_value", null), var.autoscaling_defaults.target_value)
  }
}

resource "aws_appautoscaling_target" "index_write" {
  for_each = var.autoscaling_enabled ? var.autoscaling_indexes : {}

  max_capacity       = each.value["write_max_capacity"]
  min_capacity       = each.value["write_min_capacity"]
  resource_id        = "table/${aws_dynamodb_table.this.name}/index/${each.key}"
  scalable_dimension = "dynamodb:index:WriteCapacityUnits"
  service_namespace  = "dynamodb"
}

output "autoscaling_targets" {
  value = concat(
    aws_appautoscaling_target.table_read[*].resource_id,
    [for t in aws_appautoscaling_target.index_read : t.resource_id],
  )
}
