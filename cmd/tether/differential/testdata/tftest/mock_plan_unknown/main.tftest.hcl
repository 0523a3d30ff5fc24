mock_provider "tether" {}

run "plan_only" {
  command = plan
  assert {
    condition     = tether_value.v.input == "a"
    error_message = "MSG-input"
  }
}

run "unknown_at_plan" {
  command = plan
  assert {
    condition     = output.id == "x"
    error_message = "MSG-unknown"
  }
}
