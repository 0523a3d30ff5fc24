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

variable "services" {
  type = list(string)
}

module "service" {
  source   = "./service"
  for_each = toset(var.services)
  env      = var.name
  name     = each.key
}

module "marker" {
  source = "./service"
  count  = var.name == "prod" ? 1 : 0
  env    = var.name
  name   = "marker"
}

resource "tether_file" "env" {
  path    = "out/${var.name}/env.txt"
  content = "${join(",", sort([for s in module.service : s.path]))}\n"
}

output "services" {
  value = module.service
}

output "files" {
  value = concat([tether_file.env.path], [for s in module.service : s.path], module.marker[*].path)
}
