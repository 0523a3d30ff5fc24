output "s3_bucket_id" {
  value = try(aws_s3_bucket_policy.this[0].id, aws_s3_bucket.this[0].id, "")
}

output "s3_bucket_arn" {
  value = try(aws_s3_bucket.this[0].arn, "")
}

output "s3_bucket_bucket_regional_domain_name" {
  value = try(aws_s3_bucket.this[0].bucket_regional_domain_name, "")
}

output "s3_bucket_website_endpoint" {
  value = try(aws_s3_bucket_website_configuration.this[0].website_endpoint, "")
}

output "s3_bucket_lifecycle_configuration_rules" {
  value = try(aws_s3_bucket_lifecycle_configuration.this[0].rule, "")
}

output "s3_bucket_policy" {
  value = try(aws_s3_bucket_policy.this[0].policy, "")
}
