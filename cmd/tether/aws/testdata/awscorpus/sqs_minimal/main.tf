# The issue's smallest case: an SQS queue leaving its computed arguments
# (policy among them) null.
resource "aws_sqs_queue" "q" {
  name = "x"
}
