terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
module "child" {
  source = "./child"
}
resource "tether_value" "root" {
  input = "root"
}
output "root" {
  value = tether_value.root.output
}
output "child" {
  value = module.child.o
}
output "child_x" {
  value = module.child.x
}
