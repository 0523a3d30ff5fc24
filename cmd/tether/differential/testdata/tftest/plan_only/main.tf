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

resource "tether_file" "f" {
  path    = "out/f.txt"
  content = tether_value.v.output
}

output "o" {
  value = tether_value.v.output
}
