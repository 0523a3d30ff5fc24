terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "token" {
  type      = string
  ephemeral = true
  default   = "tok-123"
}

# An output not declared ephemeral, of an ephemeral value.
output "tok" {
  value = var.token
}
