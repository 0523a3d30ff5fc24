terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

resource "tether_value" "v" {
  input = "a"
}
