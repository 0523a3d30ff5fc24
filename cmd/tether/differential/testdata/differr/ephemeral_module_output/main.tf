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

# A module output not declared ephemeral, of an ephemeral value.
module "m" {
  source = "./mod"
  tok    = var.token
}
