# Step 2 of moved_modules: the module's own moved block renames its file in
# each instance and its removed blocks forget one file and destroy another
# in each; first moves to third through second in one apply (the
# statements written in the reverse order of the chain). Nothing is created.
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

moved {
  from = tether_file.second
  to   = tether_file.third
}

moved {
  from = tether_file.first
  to   = tether_file.second
}

resource "tether_file" "third" {
  path    = "out/chained.txt"
  content = "moved twice\n"
}
