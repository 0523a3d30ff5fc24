variable "v" {
  type    = number
  default = 1
  validation {
    condition     = 1 == 2
    error_message = "Constant."
  }
}

output "o" {
  value = var.v
  precondition {
    condition     = true
    error_message = "Constant."
  }
}
