terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "in" {
  type    = string
  default = "a"
}

output "o" {
  value = var.in
  precondition {
    condition     = var.in != "bad"
    error_message = "MSG-output"
  }
}
