terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

# A module argument that does not convert to its variable's type.
module "m" {
  source = "./mod"
  copies = "many"
}
