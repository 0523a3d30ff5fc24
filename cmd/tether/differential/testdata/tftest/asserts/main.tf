terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "in" {
  type    = string
  default = "a"
}

resource "tether_value" "v" {
  input = var.in
}

output "o" {
  value = tether_value.v.output
}
