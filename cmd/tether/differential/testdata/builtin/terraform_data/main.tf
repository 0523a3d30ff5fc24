# terraform_data as both tools run it: no required_providers entry, no
# installation. Each step's variables come from terraform.tfvars.
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
variable "in" { default = "a" }
variable "trig" { default = "1" }

resource "terraform_data" "d" {
  input            = { v = var.in, n = 1 }
  triggers_replace = [var.trig]
}

# An input known only after apply: output is too.
resource "terraform_data" "after" {
  input = length(terraform_data.d.id)
}

# Replaced whenever terraform_data.d changes.
resource "terraform_data" "follower" {
  input = "f"
  lifecycle {
    replace_triggered_by = [terraform_data.d]
  }
}

# No input at all: output stays null.
resource "terraform_data" "bare" {}

import {
  to = terraform_data.imported
  id = "imported-id"
}
resource "terraform_data" "imported" {
  input = "now set"
}

output "d" { value = terraform_data.d.output }
output "after" { value = terraform_data.after.output }
output "bare_is_null" { value = terraform_data.bare.output == null }
output "imported" { value = terraform_data.imported.output }

resource "tether_file" "seen" {
  path    = "out/seen.json"
  content = jsonencode([terraform_data.d.output, terraform_data.imported.output])
}
