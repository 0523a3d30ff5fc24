terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
data "tether_file" "d" {
  path = "does/not/exist.txt"
}
resource "tether_value" "v" {
  input = data.tether_file.d.content
}
output "content" {
  value = tether_value.v.output
}
