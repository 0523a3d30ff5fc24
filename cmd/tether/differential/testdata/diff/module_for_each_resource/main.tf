# for_each on a module over a resource attribute that is known while
# planning (tether_value's output is its input): the module's instances
# depend on the resource, so destroy must destroy them as well.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_value" "csv" {
  input = "red,green"
}

module "m" {
  source   = "./mod"
  for_each = toset(split(",", tether_value.csv.output))
  name     = each.key
}

output "paths" {
  value = { for k, m in module.m : k => m.path }
}
