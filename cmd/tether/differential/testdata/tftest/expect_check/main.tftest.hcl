run "check_fails" {
  variables {
    in = "b"
  }
  expect_failures = [check.c]
}

run "check_passes" {
}

# A failed check assertion that no expect_failures lists fails the run:
# terraform test makes its warning an error.
run "check_unexpected" {
  variables {
    in = "c"
  }
}
