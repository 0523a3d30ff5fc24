terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "name" {
  type     = string
  default  = "from-default"
  nullable = false
}

variable "tags" {
  type    = list(string)
  default = ["a"]
}

variable "parts" {
  type = number
  validation {
    condition     = var.parts <= length(local.names)
    error_message = "At most ${length(local.names)} parts."
  }
}

locals {
  names = ["x", "y", "z"]
}

resource "tether_file" "m" {
  path    = "out/mod.txt"
  content = "${var.name} ${jsonencode(var.tags)} ${join(",", slice(local.names, 0, var.parts))}\n"
}

output "text" {
  value = tether_file.m.content
}
