mock_provider "tether" {
  mock_resource "tether_value" {
    defaults = {
      output = "mocked"
    }
  }
}

run "mapped" {
  providers = {
    tether = tether
  }
  assert {
    condition     = output.o == "mocked"
    error_message = "MSG-mapped"
  }
}

run "missing" {
  providers = {
    tether = nothere
  }
}
