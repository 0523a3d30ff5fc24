terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}
variable "text" {}
variable "extra" {}
resource "tether_file" "m" {
  path    = "out/m.txt"
  content = "${var.text} ${var.extra}\n"
}
output "v" { value = tether_file.m.content }
