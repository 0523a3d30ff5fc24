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

# An ephemeral value in a data source argument.
data "tether_file" "d" {
  path = var.token
}
