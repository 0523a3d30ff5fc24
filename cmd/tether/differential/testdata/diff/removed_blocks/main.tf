# Removed blocks: one resource's object is destroyed, another's is only
# forgotten (lifecycle { destroy = false }) and its file stays; a module's
# objects are forgotten with it.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_file" "keep" {
  path    = "kept/keep.txt"
  content = "kept\n"
}

resource "tether_file" "gone" {
  path    = "out/gone.txt"
  content = "gone\n"
}

resource "tether_file" "stays" {
  path    = "out/stays.txt"
  content = "stays\n"
}

module "old" {
  source = "./old"
}
