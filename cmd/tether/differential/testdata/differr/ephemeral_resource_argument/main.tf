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

# An ephemeral value in an argument that is recorded.
resource "tether_file" "f" {
  path    = "out/f.txt"
  content = "Bearer ${var.token}"
}
