terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
variable "in" {}
resource "tether_value" "r" {
  for_each = { p = 1, q = 2 }
  input    = "${var.in}-${each.key}"
}
output "out" { value = tether_value.r["p"].output }
