variable "n" {
  type = number
  validation {
    condition     = var.n > 5
    error_message = "n must be over 5."
  }
}

variable "label" {
  type = string
  validation {
    condition     = var.label != ""
    error_message = "The label must not be empty."
  }
}
