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

# for_each from an ephemeral value.
resource "tether_value" "v" {
  for_each = toset([var.token])
  input    = "x"
}
