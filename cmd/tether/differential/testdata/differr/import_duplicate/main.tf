# Two import blocks for the same instance.
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
  to = tether_file.one
  id = "out/one.txt"
}

import {
  to = tether_file.one
  id = "out/two.txt"
}
