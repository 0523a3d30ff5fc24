# An import into a module instance that the call's for_each does not make.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

module "store" {
  source   = "./mod"
  for_each = toset(["a"])
  name     = each.key
}

import {
  for_each = toset(["a", "zzz"])
  to       = module.store[each.key].tether_file.data
  id       = "out/${each.key}.txt"
}
