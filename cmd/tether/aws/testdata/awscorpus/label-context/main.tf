# The cloudposse context pattern: a root label, child labels inheriting its
# context with extra attributes, and resources named and tagged from them,
# each guarded by the label's enabled flag.

variable "namespace" {
  type    = string
  default = "cp"
}

variable "environment" {
  type    = string
  default = "ue1"
}

variable "stage" {
  type    = string
  default = "test"
}

variable "name" {
  type    = string
  default = "app"
}

variable "enabled" {
  type    = bool
  default = true
}

module "this" {
  source = "../_modules/label"

  enabled     = var.enabled
  namespace   = var.namespace
  environment = var.environment
  stage       = var.stage
  name        = var.name
  tags        = { Repository = "corpus" }
}

module "bucket_label" {
  source = "../_modules/label"

  context    = module.this.context
  attributes = ["assets"]
}

module "queue_label" {
  source = "../_modules/label"

  context     = module.this.context
  attributes  = ["jobs"]
  label_order = ["name", "attributes", "stage"]
}

module "table_label" {
  source = "../_modules/label"

  context   = module.this.context
  delimiter = "_"
  tags      = { DataClass = "internal" }
}

locals {
  enabled = module.this.enabled
}

resource "aws_s3_bucket" "default" {
  count = local.enabled ? 1 : 0

  bucket        = module.bucket_label.id
  force_destroy = true
  tags          = module.bucket_label.tags
}

resource "aws_s3_bucket_versioning" "default" {
  count = local.enabled ? 1 : 0

  bucket = one(aws_s3_bucket.default[*].id)

  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_sqs_queue" "default" {
  count = local.enabled ? 1 : 0

  name = module.queue_label.id
  tags = module.queue_label.tags
}

resource "aws_dynamodb_table" "default" {
  count = local.enabled ? 1 : 0

  name         = module.table_label.id
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"

  attribute {
    name = "id"
    type = "S"
  }

  tags = module.table_label.tags
}

resource "aws_ssm_parameter" "ids" {
  for_each = local.enabled ? {
    bucket = module.bucket_label.id
    queue  = module.queue_label.id
    table  = module.table_label.id
  } : {}

  name           = "/${module.this.id}/${each.key}"
  type           = "String"
  insecure_value = each.value
  tags           = module.this.tags
}

output "id" {
  value = module.this.id
}

output "bucket_id" {
  value = one(aws_s3_bucket.default[*].id)
}

output "queue_name" {
  value = try(aws_sqs_queue.default[0].name, "")
}

output "table_name" {
  value = try(aws_dynamodb_table.default[0].name, "")
}
