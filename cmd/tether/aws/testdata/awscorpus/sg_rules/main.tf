# A security group with its rules as separate resources, one rule naming
# another group: issue 23 item 1 planned source_security_group_id as
# unknown (forcing replacement) in every plan.
resource "aws_security_group" "app" {
  name        = "app"
  description = "application"
  vpc_id      = "vpc-0123456789abcdef0"
}

resource "aws_security_group" "lb" {
  name   = "lb"
  vpc_id = "vpc-0123456789abcdef0"
}

resource "aws_security_group_rule" "from_lb" {
  type                     = "ingress"
  from_port                = 443
  to_port                  = 443
  protocol                 = "tcp"
  security_group_id        = aws_security_group.app.id
  source_security_group_id = aws_security_group.lb.id
}

resource "aws_security_group_rule" "egress" {
  for_each = { https = 443, http = 80 }

  type              = "egress"
  from_port         = each.value
  to_port           = each.value
  protocol          = "tcp"
  cidr_blocks       = ["0.0.0.0/0"]
  security_group_id = aws_security_group.app.id
  description       = "out ${each.key}"
}
