variable "name" {
  default = "over"
}
locals {
  b = "lb-over"
}
resource "tether_file" "f" {
  content = "${var.name} ${local.a} ${local.b} ${local.c} overridden\n"
}
