terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "path" {
  type = string
}

resource "tether_file" "f" {
  path    = var.path
  content = "main"
}

output "path" {
  value = tether_file.f.path
}
