terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "size" {
  type = number
  validation {
    condition     = var.size < 10
    error_message = "MSG-validation"
  }
}

resource "tether_value" "v" {
  input = tostring(var.size)
}
