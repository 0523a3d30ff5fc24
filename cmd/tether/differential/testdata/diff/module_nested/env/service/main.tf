terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "env" {
  type = string
}

variable "name" {
  type = string
}

resource "tether_file" "svc" {
  path    = "out/${var.env}/${var.name}.txt"
  content = "${var.name} in ${var.env}\n"
}

output "path" {
  value = tether_file.svc.path
}

output "sha256" {
  value = tether_file.svc.sha256
}
