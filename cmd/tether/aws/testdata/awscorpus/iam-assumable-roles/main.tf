# Several roles from one shared module with for_each over a map of objects
# (optional attributes with defaults), an EC2 role with an instance profile,
# and a customer-managed policy fed into another module's policy_arns.

data "aws_partition" "current" {}

variable "roles" {
  type = map(object({
    services         = optional(list(string), [])
    trusted_roles    = optional(list(string), [])
    managed_policies = optional(list(string), [])
    instance_profile = optional(bool, false)
    max_session      = optional(number, 3600)
  }))
  default = {
    ec2-app = {
      services         = ["ec2.amazonaws.com"]
      managed_policies = ["AmazonSSMManagedInstanceCore", "CloudWatchAgentServerPolicy"]
      instance_profile = true
    }
    ci-deployer = {
      trusted_roles    = ["arn:aws:iam::123456789012:role/ci-runner"]
      managed_policies = ["ReadOnlyAccess"]
      max_session      = 7200
    }
    lambda-basic = {
      services         = ["lambda.amazonaws.com"]
      managed_policies = ["service-role/AWSLambdaBasicExecutionRole"]
    }
  }
}

resource "aws_iam_policy" "deploy" {
  name        = "corpus-deploy"
  path        = "/corpus/"
  description = "What the deployer may change"

  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Sid      = "Deploy"
        Effect   = "Allow"
        Action   = ["ecs:UpdateService", "ecs:DescribeServices", "ecs:RegisterTaskDefinition"]
        Resource = "*"
      },
      {
        Sid      = "PassRole"
        Effect   = "Allow"
        Action   = "iam:PassRole"
        Resource = "arn:${data.aws_partition.current.partition}:iam::123456789012:role/corpus-*"
        Condition = {
          StringEquals = { "iam:PassedToService" = "ecs-tasks.amazonaws.com" }
        }
      },
    ]
  })
}

module "role" {
  source   = "../_modules/iam-role"
  for_each = var.roles

  name                    = each.key
  trusted_services        = each.value.services
  trusted_role_arns       = each.value.trusted_roles
  max_session_duration    = each.value.max_session
  create_instance_profile = each.value.instance_profile

  policy_arns = merge(
    { for p in each.value.managed_policies : p => "arn:${data.aws_partition.current.partition}:iam::aws:policy/${p}" },
    each.key == "ci-deployer" ? { deploy = aws_iam_policy.deploy.arn } : {},
  )

  tags = { Role = each.key }
}

output "role_arns" {
  value = { for k, m in module.role : k => m.arn }
}

output "instance_profiles" {
  value = { for k, m in module.role : k => m.instance_profile_arn if m.instance_profile_arn != null }
}
