terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
resource "tether_file" "f" {
  count   = 2
  path    = "out/never-${count.index}.txt"
  content = "x"
}
resource "tether_value" "v" {
  input = "a"
}
output "ids" {
  value = tether_file.f[*].id
}
output "v" {
  value = tether_value.v.output
}
