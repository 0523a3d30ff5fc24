terraform {
  required_providers {
    tether = { source = "tetherhq/tether", version = ">= 0.0.1" }
  }
}

variable "name" {
  type = string
}

resource "tether_file" "page" {
  path    = "out/${var.name}.txt"
  content = "${var.name}\n"
}

data "tether_file" "page" {
  path = tether_file.page.path
}

module "part" {
  source = "./part"
  text   = data.tether_file.page.content
}

output "path" {
  value = module.part.path
}
