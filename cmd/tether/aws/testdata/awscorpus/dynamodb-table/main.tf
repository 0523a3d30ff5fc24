# A DynamoDB table as the dynamodb-table module builds it: attributes, global
# and local secondary indexes from lists of maps through dynamic blocks, TTL,
# point-in-time recovery and server-side encryption as blocks, a stream, and
# ignore_changes on capacity settings an autoscaler owns.

variable "create_table" {
  type    = bool
  default = true
}

variable "name" {
  type    = string
  default = "corpus-orders"
}

variable "hash_key" {
  type    = string
  default = "pk"
}

variable "range_key" {
  type    = string
  default = "sk"
}

variable "attributes" {
  type = list(map(string))
  default = [
    { name = "pk", type = "S" },
    { name = "sk", type = "S" },
    { name = "gsi1pk", type = "S" },
    { name = "gsi1sk", type = "N" },
    { name = "status", type = "S" },
  ]
}

variable "global_secondary_indexes" {
  type = any
  default = [
    {
      name               = "gsi1"
      hash_key           = "gsi1pk"
      range_key          = "gsi1sk"
      projection_type    = "INCLUDE"
      non_key_attributes = ["total", "currency"]
    },
    {
      name            = "by-status"
      hash_key        = "status"
      projection_type = "KEYS_ONLY"
    },
  ]
}

variable "local_secondary_indexes" {
  type = any
  default = [
    {
      name            = "by-status-local"
      range_key       = "status"
      projection_type = "ALL"
    },
  ]
}

variable "ttl_enabled" {
  type    = bool
  default = true
}

variable "ttl_attribute_name" {
  type    = string
  default = "expires_at"
}

variable "server_side_encryption_enabled" {
  type    = bool
  default = true
}

variable "stream_view_type" {
  type    = string
  default = "NEW_AND_OLD_IMAGES"
}

variable "tags" {
  type    = map(string)
  default = { Service = "orders" }
}

resource "aws_dynamodb_table" "this" {
  count = var.create_table ? 1 : 0

  name             = var.name
  billing_mode     = "PAY_PER_REQUEST"
  hash_key         = var.hash_key
  range_key        = var.range_key
  stream_enabled   = var.stream_view_type != null
  stream_view_type = var.stream_view_type
  table_class      = "STANDARD"

  deletion_protection_enabled = false

  ttl {
    enabled        = var.ttl_enabled
    attribute_name = var.ttl_attribute_name
  }

  point_in_time_recovery {
    enabled = true
  }

  dynamic "attribute" {
    for_each = var.attributes

    content {
      name = attribute.value.name
      type = attribute.value.type
    }
  }

  dynamic "local_secondary_index" {
    for_each = var.local_secondary_indexes

    content {
      name               = local_secondary_index.value.name
      range_key          = local_secondary_index.value.range_key
      projection_type    = local_secondary_index.value.projection_type
      non_key_attributes = lookup(local_secondary_index.value, "non_key_attributes", null)
    }
  }

  dynamic "global_secondary_index" {
    for_each = var.global_secondary_indexes

    content {
      name               = global_secondary_index.value.name
      hash_key           = global_secondary_index.value.hash_key
      projection_type    = global_secondary_index.value.projection_type
      range_key          = lookup(global_secondary_index.value, "range_key", null)
      read_capacity      = lookup(global_secondary_index.value, "read_capacity", null)
      write_capacity     = lookup(global_secondary_index.value, "write_capacity", null)
      non_key_attributes = lookup(global_secondary_index.value, "non_key_attributes", null)
    }
  }

  server_side_encryption {
    enabled     = var.server_side_encryption_enabled
    kms_key_arn = null
  }

  tags = merge(var.tags, { Name = format("%s", var.name) })

  timeouts {
    create = "10m"
    update = "60m"
    delete = "10m"
  }
}

# A small single-key table with on-demand capacity and a replica-free setup.
resource "aws_dynamodb_table" "locks" {
  name         = "corpus-terraform-locks"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "LockID"

  attribute {
    name = "LockID"
    type = "S"
  }
}

resource "aws_dynamodb_table_item" "seed" {
  table_name = aws_dynamodb_table.locks.name
  hash_key   = aws_dynamodb_table.locks.hash_key

  item = jsonencode({
    LockID = { S = "corpus-seed" }
    Digest = { S = "0000" }
  })
}

output "dynamodb_table_arn" {
  value = try(aws_dynamodb_table.this[0].arn, "")
}

output "dynamodb_table_stream_arn" {
  value = var.stream_view_type != null ? try(aws_dynamodb_table.this[0].stream_arn, "") : null
}

output "locks_table" {
  value = aws_dynamodb_table.locks.id
}
