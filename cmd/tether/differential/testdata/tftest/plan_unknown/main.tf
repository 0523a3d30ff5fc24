terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

resource "tether_value" "v" {
  input = "a"
}

resource "tether_value" "w" {
  input = tether_value.v.output
}
