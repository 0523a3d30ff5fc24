variable "create_bucket" {
  type    = bool
  default = true
}

variable "bucket" {
  type    = string
  default = "corpus-complete-bucket"
}

variable "force_destroy" {
  type    = bool
  default = true
}

variable "attach_policy_statements" {
  type    = bool
  default = true
}

variable "versioning" {
  type    = map(string)
  default = { enabled = true }
}

variable "server_side_encryption_configuration" {
  type = any
  default = {
    rule = {
      bucket_key_enabled = true
      apply_server_side_encryption_by_default = {
        sse_algorithm     = "aws:kms"
        kms_master_key_id = "arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555"
      }
    }
  }
}

variable "lifecycle_rule" {
  type = any
  default = [
    {
      id                                     = "logs"
      enabled                                = true
      abort_incomplete_multipart_upload_days = 7
      filter = {
        prefix = "logs/"
      }
      transition = [
        { days = 30, storage_class = "STANDARD_IA" },
        { days = 90, storage_class = "GLACIER" },
      ]
      expiration = { days = 365 }
      noncurrent_version_expiration = {
        noncurrent_days = 30
      }
    },
    {
      id     = "tmp"
      status = "enabled"
      filter = {
        tags = { Temporary = "true" }
      }
      expiration = { days = 2 }
    },
  ]
}

variable "cors_rule" {
  type = any
  default = [
    {
      allowed_methods = ["PUT", "POST"]
      allowed_origins = ["https://app.example.com"]
      allowed_headers = ["*"]
      expose_headers  = ["ETag"]
      max_age_seconds = 3000
    },
    {
      allowed_methods = ["GET"]
      allowed_origins = ["*"]
    },
  ]
}

variable "website" {
  type = any
  default = {
    index_document = "index.html"
    error_document = "error.html"
    routing_rules = [{
      condition = { key_prefix_equals = "docs/" }
      redirect  = { replace_key_prefix_with = "documents/" }
    }]
  }
}

variable "tags" {
  type    = map(string)
  default = { Team = "storage" }
}
