# A moved block in a module called with for_each whose from is still
# declared there.
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
}
