terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_file" "m" {
  path    = "kept/module.txt"
  content = "module\n"
}
