run "one" {
  command = plan
}
