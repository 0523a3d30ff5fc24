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

resource "tether_file" "data" {
  path    = "out/${var.name}.txt"
  content = "data\n"
}
