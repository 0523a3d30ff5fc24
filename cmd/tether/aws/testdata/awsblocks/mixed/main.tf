terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "5.100.0" }
  }
}
provider "aws" {
  region                      = "us-east-1"
  access_key                  = "AKIAFAKEFAKEFAKEFAKE"
  secret_key                  = "fake-secret-never-checked"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
}

# Both forms of one argument in one body: the attribute form wins, and the
# blocks are not expected.
resource "aws_security_group" "mixed" {
  name    = "mixed"
  ingress = []
  ingress {
    from_port = 1
    to_port   = 1
    protocol  = "tcp"
  }
}

resource "aws_route_table" "mixed" {
  vpc_id = "vpc-123"
  dynamic "route" {
    for_each = ["0.0.0.0/0"]
    content {
      cidr_block = route.value
      gateway_id = "igw-123"
    }
  }
  route = []
}
