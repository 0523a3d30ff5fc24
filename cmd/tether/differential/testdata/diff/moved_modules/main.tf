# Step 1 of moved_modules: a module called with for_each, and resources
# that step2/ moves through chains of moved blocks.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

module "store" {
  source   = "./mod"
  for_each = toset(["a", "b"])
  name     = each.key
}

resource "tether_file" "first" {
  path    = "out/chained.txt"
  content = "moved twice\n"
}
