terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
variable "name" {
  type = string
}
resource "tether_file" "f" {
  for_each = toset(["x", "y"])
  path     = "out/never-${var.name}-${each.key}.txt"
  content  = "x"
}
output "ids" {
  value = { for k, f in tether_file.f : k => f.id }
}
