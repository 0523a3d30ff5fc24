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

variable "lines" {
  type = list(string)
}

variable "mode" {
  type    = string
  default = "0644"
}

variable "labels" {
  type    = map(string)
  default = {}
}

locals {
  all_labels = merge({ name = var.name, env = "test" }, var.labels)
}

resource "tether_file" "this" {
  path            = "out/${var.name}.txt"
  content         = "${join("\n", var.lines)}\n"
  file_permission = var.mode
}

output "path" {
  value = tether_file.this.path
}

output "sha256" {
  value = tether_file.this.sha256
}

output "label" {
  value = join(",", [for k in sort(keys(local.all_labels)) : "${k}=${local.all_labels[k]}"])
}
