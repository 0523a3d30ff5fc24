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

variable "content" {
  type = string
}

resource "tether_file" "data" {
  path    = "out/${var.name}.txt"
  content = "${var.content}\n"
}
