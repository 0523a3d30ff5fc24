output "o" {
  value = { path = "x" }
}
