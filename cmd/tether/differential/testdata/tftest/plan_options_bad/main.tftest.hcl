run "bad_mode" {
  command = plan
  variables {
    x = "4"
  }
  plan_options {
    mode    = refresh-only
    refresh = false
  }
}
