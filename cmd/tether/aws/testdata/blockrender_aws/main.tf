# Nested blocks of the real hashicorp/aws 5.100.0 provider (the legacy
# SDK's list and set blocks, attributes written as blocks), planned
# offline over terraform.tfstate by TestAWSBlockRendering: the plan, show
# of the saved plan and state show must be terraform 1.11's bytes.
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

# Updated in place: a set block added (attribute "sk", a second index),
# a single list block changed (ttl), one unchanged (point_in_time_recovery),
# and tags, which are always shown.
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
  attribute {
    name = "sk"
    type = "S"
  }

  global_secondary_index {
    name            = "by-gsi"
    hash_key        = "gsi"
    projection_type = "ALL"
  }
  global_secondary_index {
    name            = "by-sk"
    hash_key        = "sk"
    projection_type = "KEYS_ONLY"
  }

  ttl {
    attribute_name = "expires"
    enabled        = true
  }

  tags = {
    Team = "core"
  }
}

# Replaced: its name forces it, and an index changes.
resource "aws_dynamodb_table" "r" {
  name         = "r2"
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
    projection_type = "KEYS_ONLY"
  }
}

# Created: ingress and egress are attributes the provider lets people
# write as blocks, which Terraform shows as attributes.
resource "aws_security_group" "g" {
  name   = "g"
  vpc_id = "vpc-0123456789abcdef0"

  ingress {
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["10.0.0.0/8"]
  }

  egress {
    from_port   = 0
    to_port     = 0
    protocol    = "-1"
    cidr_blocks = ["0.0.0.0/0"]
  }
}

# Created: a single list block given, and computed blocks known only
# after apply.
resource "aws_instance" "i" {
  ami           = "ami-0123456789abcdef0"
  instance_type = "t3.micro"

  root_block_device {
    volume_size = 10
  }
}
