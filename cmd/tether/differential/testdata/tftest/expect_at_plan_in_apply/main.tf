terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "in" {
  type    = string
  default = "bad"
}

resource "tether_value" "v" {
  input = var.in
  lifecycle {
    precondition {
      condition     = var.in != "bad"
      error_message = "MSG-precondition"
    }
  }
}
