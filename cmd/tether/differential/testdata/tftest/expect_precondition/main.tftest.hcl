run "fails_as_expected" {
  command = plan
  variables {
    in = "bad"
  }
  expect_failures = [tether_value.v]
}

run "passes" {
  command = plan
}
