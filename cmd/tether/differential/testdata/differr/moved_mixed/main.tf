# A moved block from a resource to a module.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

moved {
  from = tether_value.a
  to   = module.m
}

resource "tether_value" "b" {
  input = "b"
}
