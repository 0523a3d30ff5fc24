terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "name" {
  type = string
}

resource "tether_file" "f" {
  path    = "out/${var.name}.txt"
  content = var.name
}

output "path" {
  value = tether_file.f.path
}
