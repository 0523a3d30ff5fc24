# What people write with the real hashicorp/aws provider, and what broke
# when the merge before PlanResourceChange proposed unknowns the provider
# had not asked for: the SDK read its own unknown sentinel back as a
# policy ("74D93920-... is invalid JSON"), and planned perpetual updates
# and replacements over the objects terraform.tfstate records. Offline:
# fake keys and every skip_* setting.
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "5.100.0"
    }
  }
}

provider "aws" {
  region                      = "eu-west-1"
  access_key                  = "AKIAFAKEFAKEFAKEFAKE"
  secret_key                  = "fake-secret-never-checked"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
}

resource "aws_sqs_queue" "q" {
  name = "x"
}

resource "aws_sns_topic" "t" {
  name = "t"
}

resource "aws_kms_key" "k" {
  description = "no policy"
}

resource "aws_security_group_rule" "from_sg" {
  type                     = "ingress"
  from_port                = 443
  to_port                  = 443
  protocol                 = "tcp"
  security_group_id        = "sg-0123456789abcdef0"
  source_security_group_id = "sg-0fedcba9876543210"
}

resource "aws_security_group_rule" "from_cidr" {
  type              = "egress"
  from_port         = 0
  to_port           = 0
  protocol          = "-1"
  security_group_id = "sg-0123456789abcdef0"
  cidr_blocks       = ["0.0.0.0/0"]
}

resource "aws_dynamodb_table" "d" {
  name         = "d"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"

  attribute {
    name = "pk"
    type = "S"
  }
  attribute {
    name = "gsi"
    type = "S"
  }

  global_secondary_index {
    name            = "by-gsi"
    hash_key        = "gsi"
    projection_type = "ALL"
  }
}

resource "aws_iam_user" "u" {
  name = "u"
}

resource "aws_iam_access_key" "k" {
  user = aws_iam_user.u.name
}
