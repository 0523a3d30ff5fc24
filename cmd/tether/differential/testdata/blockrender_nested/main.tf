# Protocol 6 nested attributes (the test provider's testing_nested: a
# single object, a list and a map of objects), which Terraform shows
# neither as blocks nor as plain attributes. TestNestedAttributeRendering
# plans, shows and applies this, then update/.
terraform {
  required_providers {
    testing = {
      source = "tetherhq/testing"
    }
  }
}

provider "testing" {
  prefix = "p-"
}
