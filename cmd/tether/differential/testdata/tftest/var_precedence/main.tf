terraform {
  required_providers {
    tether = { source = "tetherhq/tether" }
  }
}

variable "a" {
  type = string
}

variable "b" {
  type = string
}

variable "c" {
  type = string
}

variable "d" {
  type = string
}

output "all" {
  value = "${var.a}-${var.b}-${var.c}-${var.d}"
}
