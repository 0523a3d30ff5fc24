# In a plan run too, a failed check assertion that no expect_failures
# lists fails the run.
run "check_unexpected_plan" {
  command = plan
  variables {
    in = "d"
  }
}

run "skipped_after_error" {
  command = plan
}
