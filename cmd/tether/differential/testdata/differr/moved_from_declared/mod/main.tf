terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

moved {
  from = tether_value.old
  to   = tether_value.new
}

resource "tether_value" "old" {
  input = "old"
}

resource "tether_value" "new" {
  input = "new"
}
