# Import blocks into module instances and over lists: the files under out/
# exist before the apply, and each import adopts one, which the
# configuration then updates.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

locals {
  stores = { a = "first", b = "second" }
}

module "store" {
  source   = "./mod"
  for_each = local.stores
  name     = "store-${each.key}"
  content  = each.value
}

# for_each over a map: each.key names the module instance.
import {
  for_each = local.stores
  to       = module.store[each.key].tether_file.data
  id       = "out/store-${each.key}.txt"
}

module "single" {
  source  = "./mod"
  name    = "single"
  content = "single"
}

import {
  to = module.single.tether_file.data
  id = "out/single.txt"
}

resource "tether_file" "listed" {
  count   = 2
  path    = "out/list-${count.index}.txt"
  content = "listed ${count.index}\n"
}

# for_each over a list: each.key is the index, each.value the element.
import {
  for_each = ["out/list-0.txt", "out/list-1.txt"]
  to       = tether_file.listed[each.key]
  id       = each.value
}

resource "tether_file" "keyed" {
  for_each = toset(["x"])
  path     = "out/keyed-${each.key}.txt"
  content  = "keyed\n"
}

# for_each over a list of objects: keys from each.value.
import {
  for_each = [{ key = "x", path = "out/keyed-x.txt" }]
  to       = tether_file.keyed[each.value.key]
  id       = each.value.path
}
