# Consumers from a local ./modules subfolder (which itself uses the shared
# queue and role modules), one instance per map entry.

variable "consumers" {
  type = map(object({
    batch_size          = optional(number, 10)
    maximum_concurrency = optional(number)
    filter_patterns     = optional(list(map(map(list(string)))), [])
    memory_size         = optional(number, 128)
  }))
  default = {
    invoices = {
      batch_size          = 25
      maximum_concurrency = 5
      filter_patterns     = [{ body = { type = ["invoice"] } }]
    }
    receipts = {
      memory_size = 256
    }
  }
}

module "consumer" {
  source   = "./modules/consumer"
  for_each = var.consumers

  name                = "corpus-${each.key}"
  batch_size          = each.value.batch_size
  maximum_concurrency = each.value.maximum_concurrency
  filter_patterns     = each.value.filter_patterns
  memory_size         = each.value.memory_size
}

output "queue_urls" {
  value = { for k, c in module.consumer : k => c.queue_url }
}

output "function_arns" {
  value = { for k, c in module.consumer : k => c.function_arn }
}
