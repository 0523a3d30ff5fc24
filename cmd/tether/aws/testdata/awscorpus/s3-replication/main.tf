# Cross-bucket replication as the s3-bucket module's replication example sets
# it up: versioned source and destination, a replication role whose policy is
# a policy document, rules from a list of maps whose destination blocks hold
# dynamic blocks (encryption, metrics, replication_time) inside the static
# destination block.

variable "name" {
  type    = string
  default = "corpus-replicated"
}

variable "replica_kms_key_arn" {
  type    = string
  default = "arn:aws:kms:us-east-1:123456789012:key/99999999-8888-7777-6666-555555555555"
}

variable "rules" {
  type = any
  default = [
    {
      id                        = "everything"
      priority                  = 10
      delete_marker_replication = true
      storage_class             = "STANDARD_IA"
      replica_kms_key_id        = true
      metrics                   = { status = "Enabled", minutes = 15 }
      replication_time          = { status = "Enabled", minutes = 15 }
    },
    {
      id       = "reports"
      priority = 20
      prefix   = "reports/"
    },
  ]
}

resource "aws_s3_bucket" "source" {
  bucket        = "${var.name}-source"
  force_destroy = true
}

resource "aws_s3_bucket" "replica" {
  bucket        = "${var.name}-replica"
  force_destroy = true
}

resource "aws_s3_bucket_versioning" "this" {
  for_each = {
    source  = aws_s3_bucket.source.id
    replica = aws_s3_bucket.replica.id
  }

  bucket = each.value

  versioning_configuration {
    status = "Enabled"
  }
}

data "aws_iam_policy_document" "replication" {
  statement {
    actions   = ["s3:GetReplicationConfiguration", "s3:ListBucket"]
    resources = [aws_s3_bucket.source.arn]
  }

  statement {
    actions   = ["s3:GetObjectVersionForReplication", "s3:GetObjectVersionAcl", "s3:GetObjectVersionTagging"]
    resources = ["${aws_s3_bucket.source.arn}/*"]
  }

  statement {
    actions   = ["s3:ReplicateObject", "s3:ReplicateDelete", "s3:ReplicateTags"]
    resources = ["${aws_s3_bucket.replica.arn}/*"]
  }

  statement {
    actions   = ["kms:Encrypt"]
    resources = [var.replica_kms_key_arn]
  }
}

module "replication_role" {
  source = "../_modules/iam-role"

  name             = "${var.name}-replication"
  trusted_services = ["s3.amazonaws.com"]
  inline_policies  = { replicate = data.aws_iam_policy_document.replication.json }
}

resource "aws_s3_bucket_replication_configuration" "this" {
  bucket = aws_s3_bucket.source.id
  role   = module.replication_role.arn

  dynamic "rule" {
    for_each = var.rules

    content {
      id       = rule.value.id
      priority = try(rule.value.priority, null)
      status   = try(tobool(rule.value.status) ? "Enabled" : "Disabled", title(lower(rule.value.status)), "Enabled")

      filter {
        prefix = try(rule.value.prefix, null)
      }

      delete_marker_replication {
        status = try(rule.value.delete_marker_replication, false) ? "Enabled" : "Disabled"
      }

      dynamic "source_selection_criteria" {
        for_each = try(rule.value.replica_kms_key_id, false) ? [true] : []
        content {
          sse_kms_encrypted_objects {
            status = "Enabled"
          }
        }
      }

      destination {
        bucket        = aws_s3_bucket.replica.arn
        storage_class = try(rule.value.storage_class, null)

        dynamic "encryption_configuration" {
          for_each = try(rule.value.replica_kms_key_id, false) ? [var.replica_kms_key_arn] : []
          content {
            replica_kms_key_id = encryption_configuration.value
          }
        }

        dynamic "metrics" {
          for_each = try([rule.value.metrics], [])
          content {
            status = metrics.value.status
            event_threshold {
              minutes = metrics.value.minutes
            }
          }
        }

        dynamic "replication_time" {
          for_each = try([rule.value.replication_time], [])
          content {
            status = replication_time.value.status
            time {
              minutes = replication_time.value.minutes
            }
          }
        }
      }
    }
  }

  depends_on = [aws_s3_bucket_versioning.this]
}

output "replication_rules" {
  value = [for r in aws_s3_bucket_replication_configuration.this.rule : r.id]
}
