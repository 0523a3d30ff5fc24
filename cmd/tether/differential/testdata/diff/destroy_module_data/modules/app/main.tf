terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
variable "arns" { type = list(string) }
variable "first" { type = string }
resource "tether_file" "f" {
  count   = length(var.arns)
  path    = "out/app${count.index}.txt"
  content = "${var.arns[count.index]} ${var.first}\n"
}
output "joined" { value = join(",", var.arns) }
output "list" { value = tether_file.f[*].path }
