run "unknown" {
  command = plan
  assert {
    condition     = tether_value.w.input == "a"
    error_message = "MSG-unknown"
  }
}

run "skipped_after_error" {
  command = plan
}
