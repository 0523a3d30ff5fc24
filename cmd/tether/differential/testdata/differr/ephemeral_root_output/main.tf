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

# An ephemeral output of the root module.
output "tok" {
  value     = var.token
  ephemeral = true
}
