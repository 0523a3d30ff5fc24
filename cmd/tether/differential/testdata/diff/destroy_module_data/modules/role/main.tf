terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
variable "name" { type = string }
data "tether_file" "seed" { path = "roles.txt" }
resource "tether_value" "r" { input = "arn:${var.name}:${length(data.tether_file.seed.content)}" }
output "arn" { value = tether_value.r.output }
