run "two" {
  assert {
    condition     = tether_value.v.output == "zz"
    error_message = "MSG-two"
  }
}
