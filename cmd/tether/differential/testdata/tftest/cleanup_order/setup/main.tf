terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

resource "tether_value" "name" {
  input = "out/made.txt"
}

resource "tether_file" "marker" {
  path    = "out/setup.txt"
  content = "setup"
}

output "name" {
  value = tether_value.name.output
}
