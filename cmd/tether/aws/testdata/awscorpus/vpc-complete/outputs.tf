output "vpc_id" {
  value = try(aws_vpc.this[0].id, null)
}

output "vpc_cidr_block" {
  value = try(aws_vpc.this[0].cidr_block, null)
}

output "public_subnets" {
  value = aws_subnet.public[*].id
}

output "private_subnets" {
  value = aws_subnet.private[*].id
}

output "nat_public_ips" {
  value = aws_eip.nat[*].public_ip
}

output "igw_id" {
  value = try(aws_internet_gateway.this[0].id, null)
}
