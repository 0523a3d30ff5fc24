mock_provider "tether" {
  mock_resource "tether_value" {
    defaults = {
      output = "mocked"
    }
  }
}

# The unaliased mock stands in for the default configuration only:
# tether.x keeps the configuration's own block.
run "default_only" {
  state_key = "default_only"
  assert {
    condition     = output.o == "mocked" && output.w == "w"
    error_message = "MSG-default-only ${output.o} ${output.w}"
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
