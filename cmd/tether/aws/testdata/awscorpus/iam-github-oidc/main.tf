# A GitHub Actions OIDC provider and the role it may assume, modelled on the
# IAM module's OIDC submodules: subjects from a list, conditions from dynamic
# blocks in a policy document, the provider created by a toggle and looked up
# by ARN otherwise.

variable "create_provider" {
  type    = bool
  default = true
}

variable "provider_url" {
  type    = string
  default = "https://token.actions.githubusercontent.com"
}

variable "subjects" {
  type    = list(string)
  default = ["repo:example-org/infra:ref:refs/heads/main", "repo:example-org/app:environment:production"]

  validation {
    condition     = alltrue([for s in var.subjects : startswith(s, "repo:")])
    error_message = "Each subject must start with \"repo:\"."
  }
}

variable "audience" {
  type    = string
  default = "sts.amazonaws.com"
}

variable "policy_arns" {
  type = map(string)
  default = {
    readonly = "arn:aws:iam::aws:policy/ReadOnlyAccess"
  }
}

locals {
  provider_host = replace(var.provider_url, "https://", "")
  provider_arn  = var.create_provider ? aws_iam_openid_connect_provider.this[0].arn : "arn:aws:iam::123456789012:oidc-provider/${local.provider_host}"
}

resource "aws_iam_openid_connect_provider" "this" {
  count = var.create_provider ? 1 : 0

  url             = var.provider_url
  client_id_list  = [var.audience]
  thumbprint_list = ["6938fd4d98bab03faadb97b34396831e3780aea1", "1c58a3a8518e8759bf075b76b750d4f2df264fcd"]

  tags = { Provider = "github" }
}

data "aws_iam_policy_document" "trust" {
  statement {
    sid     = "GithubOidcAuth"
    effect  = "Allow"
    actions = ["sts:AssumeRoleWithWebIdentity", "sts:TagSession"]

    principals {
      type        = "Federated"
      identifiers = [local.provider_arn]
    }

    condition {
      test     = "ForAllValues:StringLike"
      variable = "${local.provider_host}:aud"
      values   = [var.audience]
    }

    dynamic "condition" {
      for_each = length(var.subjects) > 0 ? [var.subjects] : []
      content {
        test     = "StringLike"
        variable = "${local.provider_host}:sub"
        values   = condition.value
      }
    }
  }
}

resource "aws_iam_role" "github" {
  name                 = "github-actions"
  description          = "Assumed by GitHub Actions workflows"
  assume_role_policy   = data.aws_iam_policy_document.trust.json
  max_session_duration = 3600
}

resource "aws_iam_role_policy_attachment" "github" {
  for_each = var.policy_arns

  role       = aws_iam_role.github.name
  policy_arn = each.value
}

output "role_arn" {
  value = aws_iam_role.github.arn
}

output "provider_arn" {
  value = local.provider_arn
}
