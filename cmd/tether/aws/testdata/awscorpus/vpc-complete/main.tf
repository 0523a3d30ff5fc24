locals {
  create_vpc = var.create_vpc

  # Prefer the secondary association's VPC id so subnets depend on it.
  vpc_id = try(aws_vpc_ipv4_cidr_block_association.this[0].vpc_id, aws_vpc.this[0].id, "")

  nat_gateway_count = var.single_nat_gateway ? 1 : length(var.azs)
  create_public     = local.create_vpc && length(var.public_subnets) > 0
  create_private    = local.create_vpc && length(var.private_subnets) > 0
}

resource "aws_vpc" "this" {
  count = local.create_vpc ? 1 : 0

  cidr_block           = var.cidr
  enable_dns_hostnames = true
  enable_dns_support   = true
  instance_tenancy     = "default"

  tags = merge({ Name = var.name }, var.tags)
}

resource "aws_vpc_ipv4_cidr_block_association" "this" {
  count = local.create_vpc && length(var.secondary_cidr_blocks) > 0 ? length(var.secondary_cidr_blocks) : 0

  vpc_id     = aws_vpc.this[0].id
  cidr_block = element(var.secondary_cidr_blocks, count.index)
}

resource "aws_vpc_dhcp_options" "this" {
  count = local.create_vpc && var.enable_dhcp_options ? 1 : 0

  domain_name         = var.dhcp_options_domain_name
  domain_name_servers = ["AmazonProvidedDNS"]

  tags = merge({ Name = var.name }, var.tags)
}

resource "aws_vpc_dhcp_options_association" "this" {
  count = local.create_vpc && var.enable_dhcp_options ? 1 : 0

  vpc_id          = local.vpc_id
  dhcp_options_id = aws_vpc_dhcp_options.this[0].id
}

resource "aws_internet_gateway" "this" {
  count = local.create_public ? 1 : 0

  vpc_id = local.vpc_id
  tags   = merge({ Name = var.name }, var.tags)
}

resource "aws_subnet" "public" {
  count = local.create_public ? length(var.public_subnets) : 0

  vpc_id                  = local.vpc_id
  cidr_block              = element(concat(var.public_subnets, [""]), count.index)
  availability_zone       = element(var.azs, count.index)
  map_public_ip_on_launch = true

  tags = merge(
    { Name = format("${var.name}-public-%s", element(var.azs, count.index)) },
    var.tags,
    lookup(var.public_subnet_tags_per_az, element(var.azs, count.index), {}),
  )
}

resource "aws_subnet" "private" {
  count = local.create_private ? length(var.private_subnets) : 0

  vpc_id            = local.vpc_id
  cidr_block        = var.private_subnets[count.index]
  availability_zone = element(var.azs, count.index)

  tags = merge(
    {
      Name = try(
        var.private_subnet_names[count.index],
        format("${var.name}-private-%s", element(var.azs, count.index))
      )
    },
    var.tags,
  )
}

resource "aws_route_table" "public" {
  count = local.create_public ? 1 : 0

  vpc_id = local.vpc_id
  tags   = merge({ Name = "${var.name}-public" }, var.tags)
}

resource "aws_route" "public_internet_gateway" {
  count = local.create_public ? 1 : 0

  route_table_id         = aws_route_table.public[0].id
  destination_cidr_block = "0.0.0.0/0"
  gateway_id             = aws_internet_gateway.this[0].id

  timeouts {
    create = "5m"
  }
}

resource "aws_route_table_association" "public" {
  count = local.create_public ? length(var.public_subnets) : 0

  subnet_id      = element(aws_subnet.public[*].id, count.index)
  route_table_id = aws_route_table.public[0].id
}

resource "aws_eip" "nat" {
  count = local.create_vpc && var.enable_nat_gateway ? local.nat_gateway_count : 0

  domain = "vpc"
  tags = merge(
    { Name = format("${var.name}-%s", element(var.azs, var.single_nat_gateway ? 0 : count.index)) },
    var.tags,
  )

  depends_on = [aws_internet_gateway.this]
}

resource "aws_nat_gateway" "this" {
  count = local.create_vpc && var.enable_nat_gateway ? local.nat_gateway_count : 0

  allocation_id = element(aws_eip.nat[*].id, var.single_nat_gateway ? 0 : count.index)
  subnet_id     = element(aws_subnet.public[*].id, var.single_nat_gateway ? 0 : count.index)

  tags = merge({ Name = "${var.name}-nat-${count.index}" }, var.tags)

  depends_on = [aws_internet_gateway.this]
}

resource "aws_route_table" "private" {
  count = local.create_private ? local.nat_gateway_count : 0

  vpc_id = local.vpc_id
  tags   = merge({ Name = "${var.name}-private-${count.index}" }, var.tags)
}

resource "aws_route" "private_nat_gateway" {
  count = local.create_vpc && var.enable_nat_gateway ? local.nat_gateway_count : 0

  route_table_id         = element(aws_route_table.private[*].id, count.index)
  destination_cidr_block = "0.0.0.0/0"
  nat_gateway_id         = element(aws_nat_gateway.this[*].id, count.index)
}

resource "aws_route_table_association" "private" {
  count = local.create_private ? length(var.private_subnets) : 0

  subnet_id = element(aws_subnet.private[*].id, count.index)
  route_table_id = element(
    aws_route_table.private[*].id,
    var.single_nat_gateway ? 0 : count.index,
  )
}
