terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "in" {
  type    = string
  default = "a"
}

check "c" {
  assert {
    condition     = var.in == "a"
    error_message = "MSG-check"
  }
}
