terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

module "m" {
  source = "./mod"
}

# A module's output may be named in depends_on, but not a part of it.
resource "tether_file" "b" {
  path       = "out/b.txt"
  content    = "b\n"
  depends_on = [module.m.o.path]
}
