# Users, groups and memberships as the IAM module's user/group submodules do
# them: users from a map of objects, access keys behind a per-user toggle,
# group policies attached with for_each over setproduct() pairs.

variable "users" {
  type = map(object({
    groups            = optional(list(string), [])
    create_access_key = optional(bool, false)
    path              = optional(string, "/")
    force_destroy     = optional(bool, true)
  }))
  default = {
    alice = { groups = ["admins", "developers"] }
    bob   = { groups = ["developers"], create_access_key = true }
    robot = { path = "/system/", create_access_key = true }
  }
}

variable "groups" {
  type = map(list(string))
  default = {
    admins     = ["arn:aws:iam::aws:policy/AdministratorAccess"]
    developers = ["arn:aws:iam::aws:policy/PowerUserAccess", "arn:aws:iam::aws:policy/IAMReadOnlyAccess"]
  }
}

resource "aws_iam_user" "this" {
  for_each = var.users

  name          = each.key
  path          = each.value.path
  force_destroy = each.value.force_destroy

  tags = { ManagedBy = "corpus" }
}

resource "aws_iam_access_key" "this" {
  for_each = { for k, u in var.users : k => u if u.create_access_key }

  user = aws_iam_user.this[each.key].name
}

resource "aws_iam_group" "this" {
  for_each = var.groups

  name = each.key
  path = "/corpus/"
}

locals {
  group_policy_pairs = {
    for pair in flatten([
      for group, arns in var.groups : [
        for arn in arns : { group = group, arn = arn }
      ]
    ]) : "${pair.group}/${basename(pair.arn)}" => pair
  }
}

resource "aws_iam_group_policy_attachment" "this" {
  for_each = local.group_policy_pairs

  group      = aws_iam_group.this[each.value.group].name
  policy_arn = each.value.arn
}

resource "aws_iam_user_group_membership" "this" {
  for_each = { for k, u in var.users : k => u if length(u.groups) > 0 }

  user   = aws_iam_user.this[each.key].name
  groups = [for g in each.value.groups : aws_iam_group.this[g].name]
}

resource "aws_iam_group_membership" "developers" {
  name  = "developers-membership"
  group = aws_iam_group.this["developers"].name
  users = [for k, u in var.users : aws_iam_user.this[k].name if contains(u.groups, "developers")]
}

resource "aws_iam_user_policy" "robot" {
  name = "robot-sqs"
  user = aws_iam_user.this["robot"].name

  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = ["sqs:SendMessage"]
      Resource = "arn:aws:sqs:us-east-1:123456789012:robot-*"
    }]
  })
}

resource "aws_iam_user_policy_attachment" "robot" {
  user       = aws_iam_user.this["robot"].name
  policy_arn = "arn:aws:iam::aws:policy/ReadOnlyAccess"
}

output "user_arns" {
  value = { for k, u in aws_iam_user.this : k => u.arn }
}

output "access_key_ids" {
  value = { for k, key in aws_iam_access_key.this : k => key.id }
}

output "access_key_secrets" {
  value     = { for k, key in aws_iam_access_key.this : k => key.secret }
  sensitive = true
}
