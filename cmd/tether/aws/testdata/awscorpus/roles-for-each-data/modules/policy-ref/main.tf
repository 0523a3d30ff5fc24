# Passes a policy through with a normalised name, as thin wrapper modules do.

variable "name" {
  type = string
}

variable "arn" {
  type = string
}

output "name" {
  value = lower(var.name)
}

output "arn" {
  value = var.arn
}
