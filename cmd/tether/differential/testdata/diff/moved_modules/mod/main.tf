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

resource "tether_file" "old" {
  path    = "out/${var.name}.txt"
  content = "data ${var.name}\n"
}

resource "tether_file" "forgotten" {
  path    = "kept/${var.name}-forgotten.txt"
  content = "left behind\n"
}

resource "tether_file" "gone" {
  path    = "out/${var.name}-gone.txt"
  content = "destroyed\n"
}
