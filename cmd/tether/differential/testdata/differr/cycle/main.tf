terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

# Two values that refer to each other: Terraform's summary names the members.
resource "tether_value" "a" {
  input = tether_value.b.output
}

resource "tether_value" "b" {
  input = tether_value.a.output
}
