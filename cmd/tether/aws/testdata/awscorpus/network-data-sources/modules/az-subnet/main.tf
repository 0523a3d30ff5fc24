# One public and one private subnet in a zone, with the private route table.

variable "vpc_id" {
  type = string
}

variable "az" {
  type = string
}

variable "public_cidr" {
  type = string
}

variable "private_cidr" {
  type = string
}

variable "tags" {
  type    = map(string)
  default = {}
}

resource "aws_subnet" "public" {
  vpc_id                  = var.vpc_id
  availability_zone       = var.az
  cidr_block              = var.public_cidr
  map_public_ip_on_launch = true
  tags                    = merge(var.tags, { Name = "public-${var.az}" })
}

resource "aws_subnet" "private" {
  vpc_id            = var.vpc_id
  availability_zone = var.az
  cidr_block        = var.private_cidr
  tags              = merge(var.tags, { Name = "private-${var.az}" })
}

resource "aws_route_table" "private" {
  vpc_id = var.vpc_id
  tags   = merge(var.tags, { Name = "private-${var.az}" })
}

resource "aws_route_table_association" "private" {
  subnet_id      = aws_subnet.private.id
  route_table_id = aws_route_table.private.id
}

output "public_subnet_id" {
  value = aws_subnet.public.id
}

output "private_subnet_id" {
  value = aws_subnet.private.id
}
