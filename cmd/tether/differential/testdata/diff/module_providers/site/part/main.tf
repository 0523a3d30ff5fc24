terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "text" {
  type = string
}

resource "tether_file" "part" {
  path    = "out/part.txt"
  content = "part of ${var.text}"
}

output "path" {
  value = tether_file.part.path
}
