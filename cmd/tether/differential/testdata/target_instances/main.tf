# -target at the level of instances, compared with terraform
# (TestDifferentialTargetInstances): a reference with a constant key
# (tether_value.x["a"]) needs that instance alone, any other reference
# (tether_value.v[each.key], a module output) all of them; what a whole
# plan of a needed resource planned for the other instances is left out
# of the apply, and a target's sibling instances are not in its value.
terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
locals {
  keys = { a = "1", b = "2", c = "3" }
}
resource "tether_value" "v" {
  for_each = local.keys
  input    = "v-${each.value}"
}
resource "tether_value" "x" {
  for_each = local.keys
  input    = "x-${tether_value.v[each.key].output}"
}
resource "tether_value" "onlya" {
  input = tether_value.x["a"].output
}
resource "tether_value" "all" {
  input = join(",", [for k, x in tether_value.x : x.output])
}
module "m" {
  source   = "./m"
  for_each = local.keys
  in       = tether_value.v[each.key].output
}
resource "tether_value" "usem" {
  input = module.m["b"].out
}
output "onlya" { value = tether_value.onlya.output }
output "xa" { value = tether_value.x["a"].output }
output "xall" { value = [for k, x in tether_value.x : x.output] }
output "usem" { value = tether_value.usem.output }
output "mb" { value = module.m["b"].out }
