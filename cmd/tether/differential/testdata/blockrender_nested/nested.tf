# The resource update/ changes.

resource "testing_nested" "n" {
  settings = {
    mode   = "fast"
    level  = 3
    labels = { team = "core" }
  }
  rules = [
    { name = "http", port = 80 },
    { name = "https", port = 443 },
    { name = "any" },
  ]
  by_name = {
    one = { value = "1" }
    two = { value = "2" }
  }
}
