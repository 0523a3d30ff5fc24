terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
resource "tether_value" "v" {
  input = "a"
}
resource "tether_file" "f" {
  path    = "out/never.txt"
  content = "x"
}
output "o" {
  value = tether_value.v.output
}
output "id" {
  value = tether_file.f.id
}
