# for_each over a set of strings: each.key and each.value are the element.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "names" {
  type    = list(string)
  default = ["alpha", "beta", "gamma", "beta"]
}

resource "tether_file" "greeting" {
  for_each = toset(var.names)
  path     = "out/${each.key}.txt"
  content  = "hello ${each.value} (${upper(each.key)})\n"
}

resource "tether_value" "lengths" {
  for_each = toset([for n in var.names : n if length(n) > 4])
  input    = length(each.value)
}

resource "tether_file" "summary" {
  path    = "out/summary.txt"
  content = "${join("\n", sort([for k, f in tether_file.greeting : "${k}=${f.sha256}"]))}\n"
}

output "keys" {
  value = keys(tether_file.greeting)
}

output "paths" {
  value = { for k, f in tether_file.greeting : k => f.path }
}

output "lengths" {
  value = { for k, v in tether_value.lengths : k => v.output }
}

output "splat_over_values" {
  value = values(tether_file.greeting)[*].id
}
