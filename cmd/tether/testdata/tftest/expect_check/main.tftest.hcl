run "check_fails" {
  variables {
    in = "b"
  }
  expect_failures = [check.c]
}

run "check_passes" {
}
