terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "tok" {
  type = string
}
