terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

resource "tether_value" "v" {
  input = "a"
}

output "o" {
  value = tether_value.v.output
}
