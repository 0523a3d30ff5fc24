terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "in" {
  type    = string
  default = "a"
}
