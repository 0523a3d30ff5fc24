mock_resource "tether_value" {
  defaults = {
    output = "from-file"
  }
}
mock_resource "tether_file" {
  defaults = {
    id = "file-id"
  }
}
