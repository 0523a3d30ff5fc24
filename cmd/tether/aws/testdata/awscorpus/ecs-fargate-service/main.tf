# Modules feeding modules: a network, a cluster from ./modules/cluster, and
# services from ./modules/service (for_each over a map of objects) that take
# the cluster ARN and subnets from the other modules' outputs.

variable "services" {
  type = map(object({
    cpu           = optional(number, 256)
    memory        = optional(number, 512)
    desired_count = optional(number, 1)
    exec          = optional(bool, false)
    containers = map(object({
      image       = string
      essential   = optional(bool, true)
      port        = optional(number)
      environment = optional(map(string), {})
      command     = optional(list(string))
    }))
  }))
  default = {
    web = {
      cpu           = 512
      memory        = 1024
      desired_count = 2
      exec          = true
      containers = {
        app = {
          image       = "public.ecr.aws/example/web:1.8.0"
          port        = 8080
          environment = { PORT = "8080", MODE = "production" }
        }
        sidecar = {
          image     = "public.ecr.aws/example/envoy:1.29"
          essential = false
          port      = 9901
        }
      }
    }
    worker = {
      containers = {
        worker = {
          image   = "public.ecr.aws/example/worker:1.8.0"
          command = ["worker", "--queue", "default"]
        }
      }
    }
  }
}

resource "aws_vpc" "this" {
  cidr_block = "10.80.0.0/16"
}

resource "aws_subnet" "private" {
  for_each = {
    a = "10.80.1.0/24"
    b = "10.80.2.0/24"
  }

  vpc_id            = aws_vpc.this.id
  cidr_block        = each.value
  availability_zone = "us-east-1${each.key}"
}

module "cluster" {
  source = "./modules/cluster"

  name = "corpus-fargate"
  tags = { Platform = "fargate" }
}

module "service" {
  source   = "./modules/service"
  for_each = var.services

  name                   = each.key
  cluster_arn            = module.cluster.arn
  vpc_id                 = aws_vpc.this.id
  subnet_ids             = [for s in aws_subnet.private : s.id]
  cpu                    = each.value.cpu
  memory                 = each.value.memory
  desired_count          = each.value.desired_count
  containers             = each.value.containers
  enable_execute_command = each.value.exec
  ingress_cidr_blocks    = [aws_vpc.this.cidr_block]
}

output "services" {
  value = { for k, s in module.service : k => s.service_id }
}

output "task_definitions" {
  value = { for k, s in module.service : k => s.task_definition_arn }
}
