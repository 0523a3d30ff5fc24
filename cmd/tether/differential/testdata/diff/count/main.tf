# count with count.index, splat and for expressions over the instances.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "replicas" {
  type    = number
  default = 3
}

resource "tether_file" "node" {
  count   = var.replicas
  path    = "out/node-${count.index}.txt"
  content = "node ${count.index} of ${var.replicas}\n"
}

# count over a computed-at-plan expression, with a conditional.
resource "tether_file" "maybe" {
  count   = var.replicas > 2 ? 1 : 0
  path    = "out/maybe.txt"
  content = "enabled\n"
}

resource "tether_value" "sizes" {
  count = 2
  input = {
    index = count.index
    name  = format("v%02d", count.index + 1)
  }
}

resource "tether_file" "index" {
  path    = "out/index.txt"
  content = <<-EOT
    paths: ${join(",", tether_file.node[*].path)}
    digests: ${join(",", [for f in tether_file.node : substr(f.sha256, 0, 8)])}
    first: ${tether_file.node[0].id}
    names: ${join(" ", tether_value.sizes[*].output.name)}
  EOT
}

output "paths" {
  value = tether_file.node[*].path
}

output "by_index" {
  value = { for i, f in tether_file.node : tostring(i) => f.content }
}

output "maybe_count" {
  value = length(tether_file.maybe)
}

output "names" {
  value = [for v in tether_value.sizes : v.output.name]
}

output "one_value" {
  value = tether_value.sizes[1].output
}
