terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "name" {
  type    = string
  default = "a"
}

resource "tether_file" "f" {
  path    = "out/${var.name}.txt"
  content = var.name
}

output "exists" {
  value = fileexists("out/${var.name}.txt")
}
