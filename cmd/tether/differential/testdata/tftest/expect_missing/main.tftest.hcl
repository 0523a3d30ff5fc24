run "not_too_big" {
  command = plan
  variables {
    size = 3
  }
  expect_failures = [var.size]
}
