# An override in a mock_provider takes the mock's override_during.
mock_provider "tether" {
  override_during = plan
  override_resource {
    target = tether_file.f
    values = {
      id = "inherited"
    }
  }
}

run "inherits" {
  command = plan
  assert {
    condition     = output.id == "inherited"
    error_message = "MSG-inherits"
  }
}

# A run's override is at apply unless it says otherwise, whatever the
# mock's default.
run "run_override_apply" {
  command = plan
  override_resource {
    target = tether_value.v
    values = {
      output = "x"
    }
  }
  assert {
    condition     = output.o == "x"
    error_message = "MSG-run-apply"
  }
}
