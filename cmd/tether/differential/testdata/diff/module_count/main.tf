# count on a module call: module.shard[0], module.shard[1], ...; count = 0
# gives no instance.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "shards" {
  type    = number
  default = 3
}

module "shard" {
  source = "./shard"
  count  = var.shards
  index  = count.index
  total  = var.shards
}

module "disabled" {
  source = "./shard"
  count  = 0
  index  = 99
  total  = 0
}

resource "tether_file" "manifest" {
  path    = "out/manifest.txt"
  content = "${join("\n", module.shard[*].path)}\n"
}

output "paths" {
  value = module.shard[*].path
}

output "second" {
  value = module.shard[1].path
}

output "disabled" {
  value = length(module.disabled)
}
