variable "a" {
  type    = string
  default = "x"
}

variable "b" {
  type    = number
  default = 1
  validation {
    condition     = var.a != ""
    error_message = "Refers to another variable only."
  }
}
