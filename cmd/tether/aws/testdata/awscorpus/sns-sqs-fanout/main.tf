# Modules feeding modules: a map of consumers builds one queue module per
# consumer (for_each over a map of objects), and the topic module subscribes
# each queue from the queue modules' outputs.

variable "topic_name" {
  type    = string
  default = "corpus-fanout"
}

variable "consumers" {
  type = map(object({
    fifo          = optional(bool, false)
    dlq           = optional(bool, true)
    filter_events = optional(list(string))
  }))
  default = {
    search    = {}
    analytics = { dlq = false }
    mailer    = { filter_events = ["user.signed_up", "user.invited"] }
  }
}

module "queue" {
  source   = "../_modules/sqs-queue"
  for_each = var.consumers

  name       = "${var.topic_name}-${each.key}"
  fifo_queue = each.value.fifo
  create_dlq = each.value.dlq

  queue_policy_statements = {
    fromTopic = {
      actions = ["sqs:SendMessage"]
      principals = [{
        type        = "Service"
        identifiers = ["sns.amazonaws.com"]
      }]
      conditions = [{
        test     = "ArnEquals"
        variable = "aws:SourceArn"
        values   = ["arn:aws:sns:us-east-1:123456789012:${var.topic_name}"]
      }]
    }
  }
}

module "topic" {
  source = "../_modules/sns-topic"

  name               = var.topic_name
  publisher_services = ["events.amazonaws.com"]

  subscriptions = {
    for name, consumer in var.consumers : name => {
      protocol             = "sqs"
      endpoint             = module.queue[name].queue_arn
      raw_message_delivery = true
      filter_policy        = consumer.filter_events == null ? null : { event = consumer.filter_events }
    }
  }
}

output "queue_urls" {
  value = { for k, q in module.queue : k => q.queue_url }
}

output "dlq_arns" {
  value = { for k, q in module.queue : k => q.dead_letter_queue_arn if q.dead_letter_queue_arn != null }
}

output "topic_arn" {
  value = module.topic.topic_arn
}
