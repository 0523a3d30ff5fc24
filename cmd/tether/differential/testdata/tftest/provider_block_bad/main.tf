terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

provider "tether" {
  runtime_dir = ".tether/runtime"
}

resource "tether_value" "v" {
  input = "a"
}
