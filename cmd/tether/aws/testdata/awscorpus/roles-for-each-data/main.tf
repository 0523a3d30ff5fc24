# Module for_each over data source results, and a module argument indexing a
# module whose for_each comes from a data source (the shape of issue 23's
# destroy failure): one policy module instance per policy document, one role
# per team, each role attaching policies picked from the policy modules.

data "aws_partition" "current" {}
data "aws_region" "current" {}

variable "teams" {
  type = map(object({
    policies = list(string)
    services = list(string)
  }))
  default = {
    payments = { policies = ["read-queues", "write-tables"], services = ["lambda.amazonaws.com"] }
    search   = { policies = ["read-queues"], services = ["ecs-tasks.amazonaws.com"] }
  }
}

data "aws_iam_policy_document" "policy" {
  for_each = {
    read-queues  = { actions = ["sqs:ReceiveMessage", "sqs:DeleteMessage"], service = "sqs" }
    write-tables = { actions = ["dynamodb:PutItem", "dynamodb:UpdateItem"], service = "dynamodb" }
  }

  statement {
    sid       = replace(title(replace(each.key, "-", " ")), " ", "")
    actions   = each.value.actions
    resources = ["arn:${data.aws_partition.current.partition}:${each.value.service}:${data.aws_region.current.name}:123456789012:corpus-*"]
  }
}

resource "aws_iam_policy" "this" {
  for_each = data.aws_iam_policy_document.policy

  name   = "corpus-${each.key}"
  policy = each.value.json
}

module "policy_alias" {
  source = "./modules/policy-ref"
  # for_each over a data source's instances.
  for_each = data.aws_iam_policy_document.policy

  name = each.key
  arn  = aws_iam_policy.this[each.key].arn
}

module "role" {
  source   = "../_modules/iam-role"
  for_each = var.teams

  name             = "corpus-${each.key}"
  trusted_services = each.value.services
  policy_arns      = { for p in each.value.policies : p => module.policy_alias[p].arn }
}

locals {
  role_names = [for k, m in module.role : m.name]
}

output "role_arns" {
  value = { for k, m in module.role : k => m.arn }
}

output "role_names_upper" {
  value = [for n in local.role_names : upper(n)]
}
