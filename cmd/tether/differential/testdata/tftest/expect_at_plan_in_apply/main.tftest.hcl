run "apply" {
  expect_failures = [tether_value.v]
}
