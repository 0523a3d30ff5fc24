variable "extra" {
  default = "never-used"
}
resource "tether_file" "m" {
  file_permission = "0640"
}
