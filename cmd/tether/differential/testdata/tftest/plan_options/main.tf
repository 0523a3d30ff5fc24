terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "x" {
  type = string
}

resource "tether_file" "a" {
  path    = "out/a.txt"
  content = var.x
}

resource "tether_file" "b" {
  path    = "out/b.txt"
  content = var.x
}

output "a" {
  value = tether_file.a.content
}
