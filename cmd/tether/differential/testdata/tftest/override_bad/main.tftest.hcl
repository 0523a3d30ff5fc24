override_resource {
  target = data.tether_file.d
}

run "r" {
  assert {
    condition     = output.content == "x"
    error_message = "MSG-never"
  }
}
