terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "prefix" {
  type = string
}

variable "names" {
  type    = set(string)
  default = ["a"]
}

variable "secret" {
  type      = string
  sensitive = true
  default   = "none"
}

variable "mode" {
  type    = string
  default = "0644"
  validation {
    condition     = length(var.mode) == 4
    error_message = "The mode must be four octal digits."
  }
}

resource "tether_file" "f" {
  for_each        = var.names
  path            = "out/${var.prefix}-${each.key}.txt"
  content         = each.key
  file_permission = var.mode
}

module "inner" {
  source  = "./inner"
  path    = "out/${var.prefix}-inner.txt"
  content = var.secret
}

output "paths" {
  value = sort([for f in tether_file.f : f.path])
}

output "count" {
  value = length(tether_file.f)
}

output "inner_sha" {
  value     = module.inner.sha
  sensitive = true
}
