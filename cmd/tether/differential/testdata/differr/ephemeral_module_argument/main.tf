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

# An ephemeral value given to a module variable not declared ephemeral.
module "m" {
  source = "./mod"
  tok    = var.token
}
