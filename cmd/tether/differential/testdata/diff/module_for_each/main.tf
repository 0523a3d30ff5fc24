# for_each on a module call, over a map: one module instance per key, with
# module addresses module.svc["api"].tether_file.conf and so on.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

locals {
  services = {
    api    = 8080
    web    = 443
    worker = 0
  }
}

module "svc" {
  source   = "./svc"
  for_each = local.services
  name     = each.key
  port     = each.value
}

# for_each on a module over a set, with no inputs but the key.
module "flag" {
  source   = "./svc"
  for_each = toset(["on", "off"])
  name     = "flag-${each.value}"
}

resource "tether_file" "all" {
  path    = "out/all.txt"
  content = "${join("\n", [for k, m in module.svc : "${k} ${m.path} ${m.sha256}"])}\n"
}

# One instance's output: depends on what that output needs only.
resource "tether_value" "api_port" {
  input = module.svc["api"].port_line
}

output "paths" {
  value = { for k, m in module.svc : k => m.path }
}

output "flags" {
  value = sort([for m in values(module.flag) : m.path])
}

output "api_port_line" {
  value = module.svc["api"].port_line
}
