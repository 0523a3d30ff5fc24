terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}
module "child" {
  source   = "./child"
  for_each = toset(["a", "b"])
  name     = each.key
}
output "ids" {
  value = { for k, m in module.child : k => m.ids }
}
