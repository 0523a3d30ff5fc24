# Terraform 1.11's rules for variable values: a null for a variable that
# is not nullable takes its default, from terraform.tfvars and from a
# module argument, while a nullable one stays null; validation rules refer
# to other variables, locals and resources.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "size" {
  type     = number
  default  = 3
  nullable = false
}

variable "label" {
  type    = string
  default = "label"
}

variable "shape" {
  type = object({
    name  = string
    sides = optional(number, 4)
  })
  default  = { name = "square" }
  nullable = false
}

variable "max_replicas" {
  type    = number
  default = 10
}

locals {
  min_replicas = var.max_replicas / 5
}

variable "replicas" {
  type    = number
  default = 4
  validation {
    condition     = var.replicas >= local.min_replicas && var.replicas <= var.max_replicas
    error_message = "replicas must be between ${local.min_replicas} and ${var.max_replicas}."
  }
  validation {
    condition     = var.replicas <= tether_value.limit.output
    error_message = "replicas must be at most the limit."
  }
}

resource "tether_value" "limit" {
  input = 6
}

module "m" {
  source = "./mod"
  name   = null
  tags   = null
  parts  = 2
}

resource "tether_file" "root" {
  path    = "out/root.txt"
  content = "size=${var.size} label=${var.label == null ? "null" : var.label} shape=${jsonencode(var.shape)} replicas=${var.replicas}\n"
}

output "mod" {
  value = module.m.text
}
