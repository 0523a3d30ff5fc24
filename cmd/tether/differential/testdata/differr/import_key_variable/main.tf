# An import address key may use each.key and each.value alone.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

locals {
  k = "a"
}

resource "tether_file" "f" {
  for_each = toset(["a"])
  path     = "out/${each.key}.txt"
  content  = "x\n"
}

import {
  for_each = toset(["a"])
  to       = tether_file.f[local.k]
  id       = "out/a.txt"
}
