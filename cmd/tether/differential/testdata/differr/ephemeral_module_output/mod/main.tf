terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "tok" {
  type      = string
  ephemeral = true
}

output "o" {
  value = var.tok
}
