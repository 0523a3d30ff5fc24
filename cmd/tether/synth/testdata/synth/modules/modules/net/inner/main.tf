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

variable "content" {
  type = string
}

resource "tether_file" "x" {
  path    = var.path
  content = var.content
}

output "sha" {
  value     = tether_file.x.sha256
  sensitive = true
}
