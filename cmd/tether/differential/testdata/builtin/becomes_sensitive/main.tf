# The first apply records var.v in clear; TestDifferentialBecomesSensitive
# then declares the variable sensitive and compares the plans: an update
# of state alone. var.v reaches no attribute that Tether's rule for
# derived values would seal beside it (terraform_data's output repeats its
# input, tether_file's sha256 digests its content): Terraform marks only
# the attributes the configuration sets, Tether those too, deliberately.
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "v" {
  type    = string
  default = "hello"
}

resource "terraform_data" "whole" {
  input            = "fixed"
  triggers_replace = var.v
}

resource "terraform_data" "nested" {
  triggers_replace = { v = var.v, n = 1 }
}

resource "terraform_data" "element" {
  triggers_replace = ["a", var.v]
}

resource "tether_file" "f" {
  path    = "out/f.txt"
  content = "f"
}
