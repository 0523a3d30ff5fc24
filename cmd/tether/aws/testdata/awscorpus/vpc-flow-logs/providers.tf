# Canonical provider setup for every root of the AWS corpus. Each root keeps an
# identical copy as providers.tf (TestAWSCorpusLayout checks it). Every endpoint
# points at a closed local port so nothing can leave the machine: planning is
# offline, and apply runs against the recording wrapper's mock.
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "5.100.0"
    }
  }
}

provider "aws" {
  region     = "us-east-1"
  access_key = "mock"
  secret_key = "mock"

  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
  s3_use_path_style           = true

  endpoints {
    applicationautoscaling = "http://127.0.0.1:1"
    cloudwatch             = "http://127.0.0.1:1"
    dynamodb               = "http://127.0.0.1:1"
    ec2                    = "http://127.0.0.1:1"
    ecs                    = "http://127.0.0.1:1"
    events                 = "http://127.0.0.1:1"
    iam                    = "http://127.0.0.1:1"
    kms                    = "http://127.0.0.1:1"
    lambda                 = "http://127.0.0.1:1"
    logs                   = "http://127.0.0.1:1"
    s3                     = "http://127.0.0.1:1"
    sns                    = "http://127.0.0.1:1"
    sqs                    = "http://127.0.0.1:1"
    ssm                    = "http://127.0.0.1:1"
    sts                    = "http://127.0.0.1:1"
  }
}
