# Moved blocks that chain into a loop have no final address.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

moved {
  from = tether_value.a
  to   = tether_value.b
}

moved {
  from = tether_value.b
  to   = tether_value.a
}

resource "tether_value" "c" {
  input = "c"
}
