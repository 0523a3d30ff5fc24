provider "tether" {
  runtime_dir = ["not", "a", "string"]
}

run "r" {
  command = plan
}
