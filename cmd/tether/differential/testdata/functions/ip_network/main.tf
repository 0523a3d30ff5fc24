# Each output is one call of a IP network function; terraform apply and tether up
# must give the same values.

output "cidrhost_0" {
  value = cidrhost("10.12.112.0/20", 16)
}

output "cidrhost_1" {
  value = cidrhost("10.12.112.0/20", -1)
}

output "cidrhost_2" {
  value = cidrhost("fd00:fd12:3456:7890::/56", 34)
}

output "cidrnetmask_3" {
  value = cidrnetmask("172.16.0.0/12")
}

output "cidrsubnet_4" {
  value = cidrsubnet("172.16.0.0/12", 4, 2)
}

output "cidrsubnet_5" {
  value = cidrsubnet("fd00:fd12:3456:7890::/56", 16, 162)
}

output "cidrsubnets_6" {
  value = cidrsubnets("10.1.0.0/16", 4, 4, 8, 4)
}

output "cidrsubnets_7" {
  value = cidrsubnets("fd00:fd12:3456:7890::/56", 16, 16, 16, 32)
}

output "cidrhost_8" {
  value = cidrhost("010.1.2.0/24", 5)
}
