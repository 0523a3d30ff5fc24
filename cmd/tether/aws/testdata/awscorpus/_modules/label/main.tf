# A naming/tagging "context" module in the cloudposse null-label style: every
# input may come from a shared context object, explicit inputs win, and the
# module returns an id, a tag map and the merged context for the next module.

variable "context" {
  type = any
  default = {
    enabled     = true
    namespace   = null
    environment = null
    stage       = null
    name        = null
    attributes  = []
    delimiter   = null
    tags        = {}
    label_order = []
  }
}

variable "enabled" {
  type    = bool
  default = null
}

variable "namespace" {
  type    = string
  default = null
}

variable "environment" {
  type    = string
  default = null
}

variable "stage" {
  type    = string
  default = null
}

variable "name" {
  type    = string
  default = null
}

variable "attributes" {
  type    = list(string)
  default = []
}

variable "delimiter" {
  type    = string
  default = null
}

variable "tags" {
  type    = map(string)
  default = {}
}

variable "label_order" {
  type    = list(string)
  default = null

  validation {
    condition     = var.label_order == null ? true : alltrue([for l in var.label_order : contains(["namespace", "environment", "stage", "name", "attributes"], l)])
    error_message = "label_order may only name namespace, environment, stage, name and attributes."
  }
}

locals {
  input = {
    enabled     = var.enabled == null ? lookup(var.context, "enabled", true) : var.enabled
    namespace   = var.namespace == null ? lookup(var.context, "namespace", null) : var.namespace
    environment = var.environment == null ? lookup(var.context, "environment", null) : var.environment
    stage       = var.stage == null ? lookup(var.context, "stage", null) : var.stage
    name        = var.name == null ? lookup(var.context, "name", null) : var.name
    delimiter   = var.delimiter == null ? lookup(var.context, "delimiter", null) : var.delimiter
    attributes  = compact(distinct(concat(coalesce(lookup(var.context, "attributes", null), []), var.attributes)))
    tags        = merge(coalesce(lookup(var.context, "tags", null), {}), var.tags)
    label_order = var.label_order != null ? var.label_order : lookup(var.context, "label_order", [])
  }

  enabled     = local.input.enabled
  delimiter   = coalesce(local.input.delimiter, "-")
  label_order = length(coalesce(local.input.label_order, [])) > 0 ? local.input.label_order : ["namespace", "environment", "stage", "name", "attributes"]

  parts = {
    namespace   = local.input.namespace == null ? "" : lower(local.input.namespace)
    environment = local.input.environment == null ? "" : lower(local.input.environment)
    stage       = local.input.stage == null ? "" : lower(local.input.stage)
    name        = local.input.name == null ? "" : lower(local.input.name)
    attributes  = join(local.delimiter, local.input.attributes)
  }

  id = local.enabled ? join(local.delimiter, compact([for l in local.label_order : local.parts[l]])) : ""

  generated_tags = {
    for k in ["namespace", "environment", "stage", "name"] :
    title(k) => k == "name" ? local.id : local.parts[k] if local.parts[k] != ""
  }

  tags = merge(local.generated_tags, local.input.tags)

  output_context = {
    enabled     = local.enabled
    namespace   = local.input.namespace
    environment = local.input.environment
    stage       = local.input.stage
    name        = local.input.name
    delimiter   = local.input.delimiter
    attributes  = local.input.attributes
    tags        = local.tags
    label_order = local.input.label_order
  }
}

output "id" {
  value = local.id
}

output "enabled" {
  value = local.enabled
}

output "tags" {
  value = local.enabled ? local.tags : {}
}

output "context" {
  value = local.output_context
}
