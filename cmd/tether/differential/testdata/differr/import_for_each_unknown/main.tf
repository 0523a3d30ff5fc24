# An import whose for_each is known only after apply: Terraform cannot
# tell what it imports.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_value" "v" {
  input = "x"
}

resource "tether_file" "f" {
  for_each = toset(["a"])
  path     = "out/${each.key}.txt"
  content  = "x\n"
}

import {
  for_each = toset([tether_value.v.id])
  to       = tether_file.f[each.key]
  id       = each.key
}
