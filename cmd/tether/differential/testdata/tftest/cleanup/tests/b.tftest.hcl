run "fresh_state" {
  command = plan
  assert {
    condition     = !fileexists("out/b.txt") && tether_file.f.path == "out/a.txt"
    error_message = "MSG-fresh"
  }
}
