run "refers" {
  command = plan
  variables {
    in = run.nothere.o
  }
}

run "later" {
  command = plan
}
