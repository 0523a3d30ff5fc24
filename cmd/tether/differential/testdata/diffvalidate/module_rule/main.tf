# A constant argument fails the module's rule: validate finds it without
# any variable's value. The root variable's own rule is not decided: its
# value is unknown while validating.
variable "name" {
  type    = string
  default = "ab"
  validation {
    condition     = length(var.name) > 3
    error_message = "The name is too short."
  }
}

module "m" {
  source = "./m"
  n      = 1
  label  = var.name
}
