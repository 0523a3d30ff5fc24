terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "copies" {
  type = number
}

output "copies" {
  value = var.copies
}
