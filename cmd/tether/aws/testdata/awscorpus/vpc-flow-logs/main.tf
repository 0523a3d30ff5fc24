# VPC flow logs to CloudWatch Logs as the VPC module's flow-log submodule does
# it: the log group and the delivery role come from shared modules, the role's
# inline policy is jsonencode()d, and a second flow log goes to S3.

variable "name" {
  type    = string
  default = "corpus-flow"
}

variable "enable_flow_log" {
  type    = bool
  default = true
}

variable "flow_log_max_aggregation_interval" {
  type    = number
  default = 600

  validation {
    condition     = contains([60, 600], var.flow_log_max_aggregation_interval)
    error_message = "The aggregation interval must be 60 or 600 seconds."
  }
}

resource "aws_vpc" "this" {
  cidr_block = "10.70.0.0/16"
  tags       = { Name = var.name }
}

module "log_group" {
  source = "../_modules/log-group"

  create            = var.enable_flow_log
  name              = "/aws/vpc-flow-log/${var.name}"
  retention_in_days = 30

  metric_filters = {
    rejected = { pattern = "[version, account, eni, source, destination, srcport, destport, protocol, packets, bytes, windowstart, windowend, action=\"REJECT\", flowlogstatus]" }
  }
}

module "flow_log_role" {
  source = "../_modules/iam-role"

  create           = var.enable_flow_log
  name             = "${var.name}-delivery"
  trusted_services = ["vpc-flow-logs.amazonaws.com"]

  inline_policies = {
    deliver = jsonencode({
      Version = "2012-10-17"
      Statement = [{
        Sid    = "AWSVPCFlowLogsPushToCloudWatch"
        Effect = "Allow"
        Action = [
          "logs:CreateLogStream",
          "logs:PutLogEvents",
          "logs:DescribeLogGroups",
          "logs:DescribeLogStreams",
        ]
        Resource = "*"
      }]
    })
  }
}

resource "aws_flow_log" "cloudwatch" {
  count = var.enable_flow_log ? 1 : 0

  log_destination_type     = "cloud-watch-logs"
  log_destination          = module.log_group.arn
  iam_role_arn             = module.flow_log_role.arn
  traffic_type             = "ALL"
  vpc_id                   = aws_vpc.this.id
  max_aggregation_interval = var.flow_log_max_aggregation_interval

  tags = { Name = var.name }
}

resource "aws_s3_bucket" "flow_logs" {
  count = var.enable_flow_log ? 1 : 0

  bucket        = "${var.name}-flow-logs"
  force_destroy = true
}

resource "aws_flow_log" "s3" {
  count = var.enable_flow_log ? 1 : 0

  log_destination_type = "s3"
  log_destination      = aws_s3_bucket.flow_logs[0].arn
  traffic_type         = "REJECT"
  vpc_id               = aws_vpc.this.id

  destination_options {
    file_format                = "parquet"
    per_hour_partition         = true
    hive_compatible_partitions = false
  }
}

output "flow_log_ids" {
  value = compact([try(aws_flow_log.cloudwatch[0].id, ""), try(aws_flow_log.s3[0].id, "")])
}

output "log_group_arn" {
  value = module.log_group.arn
}
