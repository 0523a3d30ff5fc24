run "bad_output" {
  command = plan
  variables {
    in = "bad"
  }
  expect_failures = [output.o]
}
