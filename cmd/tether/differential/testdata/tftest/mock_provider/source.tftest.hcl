# A mock_provider's source is a folder of mock data files, read as
# terraform test reads them: the block's own mock_resource wins over a
# file's for the same type.
mock_provider "tether" {
  source = "./mocks"
  mock_resource "tether_file" {
    defaults = {
      id = "inline-id"
    }
  }
}

run "from_files" {
  assert {
    condition     = output.o == "from-file"
    error_message = "MSG-source-file ${output.o}"
  }
  assert {
    condition     = output.id == "inline-id"
    error_message = "MSG-source-inline ${output.id}"
  }
  assert {
    condition     = output.w == "json-override"
    error_message = "MSG-source-json ${output.w}"
  }
}
