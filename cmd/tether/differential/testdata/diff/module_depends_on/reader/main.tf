terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "path" {
  type = string
}

variable "copy" {
  type = string
}

data "tether_file" "in" {
  path = var.path
}

resource "tether_file" "copy" {
  path    = var.copy
  content = "copy: ${data.tether_file.in.content}"
}

output "content" {
  value = data.tether_file.in.content
}
