# Data sources: one reading a file written by a resource (read during apply
# on the first run), one with for_each, and one reading a file that exists
# before the run.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

resource "tether_file" "src" {
  for_each = toset(["one", "two"])
  path     = "out/src/${each.key}.txt"
  content  = "source ${each.key}\n"
}

data "tether_file" "read" {
  for_each = tether_file.src
  path     = each.value.path
}

data "tether_file" "static" {
  path = "input.txt"
}

resource "tether_file" "combined" {
  path    = "out/combined.txt"
  content = "${join("", [for k, d in data.tether_file.read : d.content])}${data.tether_file.static.content}"
}

output "contents" {
  value = { for k, d in data.tether_file.read : k => d.content }
}

output "static_sha" {
  value = data.tether_file.static.sha256
}
