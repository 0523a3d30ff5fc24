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

variable "port" {
  type    = number
  default = 0
}

resource "tether_file" "conf" {
  path    = "out/svc/${var.name}.conf"
  content = var.port > 0 ? "listen ${var.port}\n" : "disabled\n"
}

resource "tether_value" "meta" {
  count = var.port > 0 ? 1 : 0
  input = { name = var.name, port = var.port }
}

# Named by no output: a reference to the whole module still depends on it,
# and records it in state, as Terraform's does.
resource "tether_value" "unexported" {
  input = var.name
}

output "path" {
  value = tether_file.conf.path
}

output "sha256" {
  value = tether_file.conf.sha256
}

output "port_line" {
  value = one(tether_value.meta[*].output.port)
}
