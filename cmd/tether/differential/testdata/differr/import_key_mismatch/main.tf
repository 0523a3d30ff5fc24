# A string key on a resource without for_each.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_file" "one" {
  path    = "out/one.txt"
  content = "x\n"
}

import {
  to = tether_file.one["a"]
  id = "out/one.txt"
}
