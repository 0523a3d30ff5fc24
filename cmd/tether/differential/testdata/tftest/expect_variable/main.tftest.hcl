run "too_big" {
  command = plan
  variables {
    size = 12
  }
  expect_failures = [var.size]
}

run "fine" {
  command = plan
  variables {
    size = 3
  }
}
