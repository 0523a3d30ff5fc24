# Step 2 of TestNestedAttributeRendering: an attribute of the single
# object changes and one goes; a rule changes, one is added; a map
# element changes, one goes and one comes.
resource "testing_nested" "n" {
  settings = {
    mode   = "slow"
    labels = { team = "core" }
  }
  rules = [
    { name = "http", port = 8080 },
    { name = "https", port = 443 },
    { name = "any" },
    { name = "ssh", port = 22 },
  ]
  by_name = {
    one   = { value = "one" }
    three = { value = "3" }
  }
}
