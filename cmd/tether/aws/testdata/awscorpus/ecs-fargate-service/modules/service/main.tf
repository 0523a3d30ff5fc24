# A Fargate service in the shape of the ecs module's service submodule: task
# definition with container definitions built by jsonencode() from a map of
# objects, task and execution roles from the shared role module, a security
# group with rules from a map, and the service ignoring desired_count changes.

variable "name" {
  type = string
}

variable "cluster_arn" {
  type = string
}

variable "vpc_id" {
  type = string
}

variable "subnet_ids" {
  type = list(string)
}

variable "cpu" {
  type    = number
  default = 256
}

variable "memory" {
  type    = number
  default = 512
}

variable "desired_count" {
  type    = number
  default = 1
}

variable "containers" {
  type = map(object({
    image       = string
    essential   = optional(bool, true)
    port        = optional(number)
    environment = optional(map(string), {})
    command     = optional(list(string))
  }))
}

variable "ingress_cidr_blocks" {
  type    = list(string)
  default = []
}

variable "load_balancers" {
  type = map(object({
    target_group_arn = string
    container_name   = string
    container_port   = number
  }))
  default = {}
}

variable "enable_execute_command" {
  type    = bool
  default = false
}

data "aws_region" "current" {}

resource "aws_cloudwatch_log_group" "this" {
  name              = "/ecs/${var.name}"
  retention_in_days = 30
}

module "task_exec_role" {
  source = "../../../_modules/iam-role"

  name             = "${var.name}-exec"
  trusted_services = ["ecs-tasks.amazonaws.com"]
  policy_arns      = { exec = "arn:aws:iam::aws:policy/service-role/AmazonECSTaskExecutionRolePolicy" }
}

module "task_role" {
  source = "../../../_modules/iam-role"

  name             = "${var.name}-task"
  trusted_services = ["ecs-tasks.amazonaws.com"]
  inline_policies = var.enable_execute_command ? {
    ecs-exec = jsonencode({
      Version = "2012-10-17"
      Statement = [{
        Effect = "Allow"
        Action = [
          "ssmmessages:CreateControlChannel",
          "ssmmessages:CreateDataChannel",
          "ssmmessages:OpenControlChannel",
          "ssmmessages:OpenDataChannel",
        ]
        Resource = "*"
      }]
    })
  } : {}
}

locals {
  container_definitions = [
    for name, c in var.containers : {
      name      = name
      image     = c.image
      essential = c.essential
      command   = c.command
      portMappings = c.port == null ? [] : [{
        name          = name
        containerPort = c.port
        hostPort      = c.port
        protocol      = "tcp"
      }]
      environment = [for k in sort(keys(c.environment)) : { name = k, value = c.environment[k] }]
      logConfiguration = {
        logDriver = "awslogs"
        options = {
          awslogs-group         = aws_cloudwatch_log_group.this.name
          awslogs-region        = data.aws_region.current.name
          awslogs-stream-prefix = name
        }
      }
    }
  ]

  ports = { for name, c in var.containers : name => c.port if c.port != null }
}

resource "aws_ecs_task_definition" "this" {
  family                   = var.name
  requires_compatibilities = ["FARGATE"]
  network_mode             = "awsvpc"
  cpu                      = var.cpu
  memory                   = var.memory
  execution_role_arn       = module.task_exec_role.arn
  task_role_arn            = module.task_role.arn
  container_definitions    = jsonencode(local.container_definitions)

  runtime_platform {
    operating_system_family = "LINUX"
    cpu_architecture        = "ARM64"
  }

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_security_group" "this" {
  name_prefix = "${var.name}-"
  description = "Service ${var.name}"
  vpc_id      = var.vpc_id

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_security_group_rule" "ingress" {
  for_each = { for name, port in local.ports : name => port if length(var.ingress_cidr_blocks) > 0 }

  type              = "ingress"
  security_group_id = aws_security_group.this.id
  from_port         = each.value
  to_port           = each.value
  protocol          = "tcp"
  cidr_blocks       = var.ingress_cidr_blocks
  description       = "container ${each.key}"
}

resource "aws_security_group_rule" "egress_all" {
  type              = "egress"
  security_group_id = aws_security_group.this.id
  from_port         = 0
  to_port           = 0
  protocol          = "-1"
  cidr_blocks       = ["0.0.0.0/0"]
}

resource "aws_ecs_service" "this" {
  name                   = var.name
  cluster                = var.cluster_arn
  task_definition        = aws_ecs_task_definition.this.arn
  desired_count          = var.desired_count
  launch_type            = "FARGATE"
  enable_execute_command = var.enable_execute_command
  propagate_tags         = "SERVICE"

  wait_for_steady_state = false

  network_configuration {
    subnets          = var.subnet_ids
    security_groups  = [aws_security_group.this.id]
    assign_public_ip = false
  }

  deployment_circuit_breaker {
    enable   = true
    rollback = true
  }

  deployment_controller {
    type = "ECS"
  }

  dynamic "load_balancer" {
    for_each = var.load_balancers
    content {
      target_group_arn = load_balancer.value.target_group_arn
      container_name   = load_balancer.value.container_name
      container_port   = load_balancer.value.container_port
    }
  }

  lifecycle {
    ignore_changes = [desired_count]
  }
}

output "service_id" {
  value = aws_ecs_service.this.id
}

output "task_definition_arn" {
  value = aws_ecs_task_definition.this.arn
}

output "security_group_id" {
  value = aws_security_group.this.id
}
