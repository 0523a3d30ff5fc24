# Override files: override.tf, NAME_override.tf.json and a module's own,
# merged by Terraform's rules (arguments one by one, nested blocks by type,
# locals one by one, a variable's default, a module call's argument).
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}
variable "name" {
  type    = string
  default = "base"
  validation {
    condition     = length(var.name) > 2
    error_message = "too short"
  }
}
locals {
  a = "la"
  b = "lb"
}
locals {
  c = "lc"
}
resource "tether_file" "f" {
  path    = "out/f.txt"
  content = "${var.name} ${local.a} ${local.b} ${local.c}\n"
  file_permission = "0600"
  lifecycle {
    create_before_destroy = true
    precondition {
      condition     = var.name != "bad"
      error_message = "bad name"
    }
  }
}
resource "tether_bundle" "b" {
  dir = "out/bundle"
  file {
    path    = "a.txt"
    content = "A"
  }
  file {
    path    = "b.txt"
    content = "B"
  }
}
module "m" {
  source = "./mod"
  text   = "base-text"
  extra  = "base-extra"
}
output "o" {
  value = "base-output"
}
output "m" {
  value = module.m.v
}
