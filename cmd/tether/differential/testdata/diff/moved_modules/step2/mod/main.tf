terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "name" {
  type = string
}

moved {
  from = tether_file.old
  to   = tether_file.new
}

resource "tether_file" "new" {
  path    = "out/${var.name}.txt"
  content = "data ${var.name}\n"
}

# removed blocks in a module called with for_each act in each instance.
removed {
  from = tether_file.forgotten

  lifecycle {
    destroy = false
  }
}

removed {
  from = tether_file.gone
}
