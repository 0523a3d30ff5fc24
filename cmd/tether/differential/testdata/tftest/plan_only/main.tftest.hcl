run "known_at_plan" {
  command = plan
  assert {
    condition     = tether_value.v.input == "a"
    error_message = "MSG-known"
  }
  assert {
    condition     = tether_file.f.path == "out/f.txt"
    error_message = "MSG-path"
  }
}

run "failing_plan" {
  command = plan
  assert {
    condition     = var.in == "z"
    error_message = "MSG-plan-fails"
  }
}
