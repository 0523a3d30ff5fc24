run "not_bool" {
  command = plan
  assert {
    condition     = tether_value.v.input
    error_message = "MSG-notbool"
  }
}
