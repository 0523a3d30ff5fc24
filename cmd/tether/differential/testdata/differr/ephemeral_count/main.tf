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

# count from an ephemeral value.
resource "tether_value" "v" {
  count = length(var.token)
  input = "x"
}
