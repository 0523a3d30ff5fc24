# Built-in functions whose Terraform behaviour differs from the cty
# standard library's function of the same name.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

locals {
  zones = ["a", "b", "c"]
}

resource "tether_file" "zone" {
  for_each = toset(local.zones)
  path     = "out/${each.key}.txt"
  # index(list, value) is the position of value in list.
  content = "zone ${each.key} is #${index(local.zones, each.key)}\n"
}

output "index" {
  value = index(local.zones, "c")
}

# replace treats a substring wrapped in slashes as a regular expression,
# with $1-style references to its groups.
output "replace_regex" {
  value = [replace("v1.2.3", "/[0-9]+/", "N"), replace("ab-12", "/([a-z]+)-(\\d+)/", "$2-$1")]
}

# coalesce skips empty strings as well as nulls.
output "coalesce_empty" {
  value = coalesce("", "fallback")
}
