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

removed {
  from = tether_file.keep

  lifecycle {
    destroy = false
  }
}

removed {
  from = tether_file.gone
}

removed {
  from = module.old

  lifecycle {
    destroy = false
  }
}

resource "tether_file" "stays" {
  path    = "out/stays.txt"
  content = "stays\n"
}
