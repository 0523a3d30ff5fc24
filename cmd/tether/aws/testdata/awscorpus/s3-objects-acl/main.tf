# Objects uploaded from a map of objects (content, type, tags), a bucket with
# ACLs enabled through ownership controls, an ACL written with a grant-based
# access_control_policy whose grants are dynamic blocks inside a static block,
# object lock and intelligent-tiering configuration, and accelerate.

variable "bucket" {
  type    = string
  default = "corpus-static-site"
}

variable "objects" {
  type = map(object({
    content      = string
    content_type = optional(string, "text/plain")
    cache        = optional(string)
    tags         = optional(map(string), {})
  }))
  default = {
    "index.html"  = { content = "<h1>corpus</h1>", content_type = "text/html", cache = "max-age=300" }
    "robots.txt"  = { content = "User-agent: *\nDisallow:\n" }
    "config.json" = { content = "{\"version\": 3}", content_type = "application/json", tags = { Generated = "true" } }
  }
}

variable "grants" {
  type = list(object({
    type       = string
    permission = string
    id         = optional(string)
    uri        = optional(string)
  }))
  default = [
    { type = "Group", permission = "READ_ACP", uri = "http://acs.amazonaws.com/groups/s3/LogDelivery" },
    { type = "Group", permission = "WRITE", uri = "http://acs.amazonaws.com/groups/s3/LogDelivery" },
  ]
}

resource "aws_s3_bucket" "this" {
  bucket              = var.bucket
  force_destroy       = true
  object_lock_enabled = true
}

resource "aws_s3_bucket_ownership_controls" "this" {
  bucket = aws_s3_bucket.this.id

  rule {
    object_ownership = "BucketOwnerPreferred"
  }
}

resource "aws_s3_bucket_acl" "this" {
  bucket = aws_s3_bucket.this.id

  access_control_policy {
    dynamic "grant" {
      for_each = var.grants
      content {
        permission = grant.value.permission
        grantee {
          type = grant.value.type
          id   = grant.value.id
          uri  = grant.value.uri
        }
      }
    }

    owner {
      id = "79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be"
    }
  }

  depends_on = [aws_s3_bucket_ownership_controls.this]
}

resource "aws_s3_bucket_object_lock_configuration" "this" {
  bucket = aws_s3_bucket.this.id

  rule {
    default_retention {
      mode = "GOVERNANCE"
      days = 1
    }
  }
}

resource "aws_s3_bucket_intelligent_tiering_configuration" "archive" {
  bucket = aws_s3_bucket.this.id
  name   = "archive-old"

  filter {
    prefix = "archive/"
  }

  tiering {
    access_tier = "ARCHIVE_ACCESS"
    days        = 125
  }

  tiering {
    access_tier = "DEEP_ARCHIVE_ACCESS"
    days        = 180
  }
}

resource "aws_s3_bucket_accelerate_configuration" "this" {
  bucket = aws_s3_bucket.this.id
  status = "Enabled"
}

resource "aws_s3_object" "this" {
  for_each = var.objects

  bucket        = aws_s3_bucket.this.id
  key           = each.key
  content       = each.value.content
  content_type  = each.value.content_type
  cache_control = each.value.cache
  tags          = length(each.value.tags) > 0 ? each.value.tags : null

  override_provider {
    default_tags {
      tags = {}
    }
  }
}

output "object_etags" {
  value = { for k, o in aws_s3_object.this : k => o.etag }
}

output "acl_id" {
  value = aws_s3_bucket_acl.this.id
}
