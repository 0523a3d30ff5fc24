# for_each over a map: each.key is the key, each.value the element, which
# may be an object.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "services" {
  type = map(object({
    port = number
    tags = list(string)
  }))
  default = {
    api = { port = 8080, tags = ["public", "http"] }
    db  = { port = 5432, tags = ["private"] }
    web = { port = 443, tags = [] }
  }
}

locals {
  public = { for name, s in var.services : name => s if contains(s.tags, "public") }
}

resource "tether_file" "service" {
  for_each        = var.services
  path            = "out/services/${each.key}.conf"
  content         = "name=${each.key}\nport=${each.value.port}\ntags=${join(",", each.value.tags)}\n"
  file_permission = each.key == "db" ? "0600" : "0644"
}

resource "tether_value" "public" {
  for_each = local.public
  input    = "${each.key}:${each.value.port}"
}

# for_each over another resource's instances.
resource "tether_file" "digest" {
  for_each = tether_file.service
  path     = "out/digests/${each.key}.sha256"
  content  = "${each.value.sha256}  ${each.value.path}\n"
}

output "ports" {
  value = { for k, f in tether_file.service : k => var.services[k].port }
}

output "public" {
  value = [for k, v in tether_value.public : v.output]
}

output "digest_paths" {
  value = values(tether_file.digest)[*].path
}

output "service_ids" {
  value = { for k, f in tether_file.service : upper(k) => f.id }
}
