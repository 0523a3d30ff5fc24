variable "create_vpc" {
  description = "Controls whether the VPC and everything in it is created."
  type        = bool
  default     = true
}

variable "name" {
  type    = string
  default = "corpus-main"
}

variable "cidr" {
  type    = string
  default = "10.10.0.0/16"

  validation {
    condition     = can(cidrhost(var.cidr, 0))
    error_message = "The cidr must be a valid IPv4 CIDR block."
  }
}

variable "azs" {
  type    = list(string)
  default = ["us-east-1a", "us-east-1b", "us-east-1c"]
}

variable "public_subnets" {
  type    = list(string)
  default = ["10.10.0.0/24", "10.10.1.0/24", "10.10.2.0/24"]
}

variable "private_subnets" {
  type    = list(string)
  default = ["10.10.10.0/24", "10.10.11.0/24", "10.10.12.0/24"]
}

variable "secondary_cidr_blocks" {
  type    = list(string)
  default = ["10.20.0.0/16"]
}

variable "enable_nat_gateway" {
  type    = bool
  default = true
}

variable "single_nat_gateway" {
  type    = bool
  default = true
}

variable "enable_dhcp_options" {
  type    = bool
  default = true
}

variable "dhcp_options_domain_name" {
  type    = string
  default = "corpus.internal"
}

variable "public_subnet_tags_per_az" {
  type = map(map(string))
  default = {
    "us-east-1a" = { Tier = "edge-a" }
  }
}

variable "private_subnet_names" {
  type    = list(string)
  default = []
}

variable "tags" {
  type = map(string)
  default = {
    Environment = "test"
    Owner       = "platform"
  }
}
