# A cluster in the ecs module's cluster submodule shape: execute-command
# configuration whose log_configuration is a dynamic block inside static
# blocks, container insights as a setting, Fargate capacity providers with a
# default strategy from a map of objects, and the log group created by toggle.

variable "cluster_name" {
  type    = string
  default = "corpus"
}

variable "create_cloudwatch_log_group" {
  type    = bool
  default = true
}

variable "cluster_configuration" {
  type = object({
    logging           = optional(string, "OVERRIDE")
    kms_key_id        = optional(string)
    log_configuration = optional(map(string), {})
  })
  default = {
    log_configuration = {
      cloud_watch_encryption_enabled = "true"
    }
  }
}

variable "container_insights" {
  type    = string
  default = "enabled"

  validation {
    condition     = contains(["enabled", "disabled", "enhanced"], var.container_insights)
    error_message = "container_insights must be enabled, disabled or enhanced."
  }
}

variable "default_capacity_provider_strategy" {
  type = map(object({
    weight = optional(number, 1)
    base   = optional(number)
  }))
  default = {
    FARGATE      = { weight = 50, base = 20 }
    FARGATE_SPOT = { weight = 50 }
  }
}

resource "aws_cloudwatch_log_group" "this" {
  count = var.create_cloudwatch_log_group ? 1 : 0

  name              = "/aws/ecs/${var.cluster_name}"
  retention_in_days = 90
}

resource "aws_ecs_cluster" "this" {
  name = var.cluster_name

  configuration {
    execute_command_configuration {
      kms_key_id = var.cluster_configuration.kms_key_id
      logging    = var.cluster_configuration.logging

      dynamic "log_configuration" {
        for_each = var.cluster_configuration.logging == "OVERRIDE" ? [var.cluster_configuration.log_configuration] : []

        content {
          cloud_watch_encryption_enabled = try(tobool(log_configuration.value.cloud_watch_encryption_enabled), null)
          cloud_watch_log_group_name     = try(log_configuration.value.cloud_watch_log_group_name, aws_cloudwatch_log_group.this[0].name, null)
          s3_bucket_name                 = try(log_configuration.value.s3_bucket_name, null)
          s3_key_prefix                  = try(log_configuration.value.s3_key_prefix, null)
        }
      }
    }
  }

  setting {
    name  = "containerInsights"
    value = var.container_insights
  }

  service_connect_defaults {
    namespace = "arn:aws:servicediscovery:us-east-1:123456789012:namespace/ns-abcdefghijklmnop"
  }
}

resource "aws_ecs_cluster_capacity_providers" "this" {
  cluster_name       = aws_ecs_cluster.this.name
  capacity_providers = distinct(keys(var.default_capacity_provider_strategy))

  dynamic "default_capacity_provider_strategy" {
    for_each = var.default_capacity_provider_strategy

    content {
      capacity_provider = default_capacity_provider_strategy.key
      weight            = default_capacity_provider_strategy.value.weight
      base              = default_capacity_provider_strategy.value.base
    }
  }
}

output "cluster_arn" {
  value = aws_ecs_cluster.this.arn
}

output "cluster_capacity_providers" {
  value = aws_ecs_cluster_capacity_providers.this.capacity_providers
}

output "cloudwatch_log_group_name" {
  value = try(aws_cloudwatch_log_group.this[0].name, null)
}
