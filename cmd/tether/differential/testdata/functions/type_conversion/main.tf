# Each output is one call of a type conversion function; terraform apply and tether up
# must give the same values.

output "tobool_0" {
  value = tobool("true")
}

output "tonumber_1" {
  value = tonumber("42")
}

output "tostring_2" {
  value = tostring(5)
}

output "tolist_3" {
  value = tolist(["a", 1])
}

output "toset_4" {
  value = toset(["b", "a", "b"])
}

output "tomap_5" {
  value = tomap({a = 1, b = "x"})
}

output "can_6" {
  value = can(tonumber("x"))
}

output "try_7" {
  value = try(tonumber("x"), "fallback")
}

output "issensitive_8" {
  value = issensitive("x")
}

output "nonsensitive_9" {
  value = nonsensitive(sensitive("shown"))
}

output "ephemeralasnull_10" {
  value = ephemeralasnull({a = 1})
}

output "issensitive_of_sensitive" {
  value = issensitive(sensitive("x"))
}

output "hash_of_secret" {
  value     = sha256(sensitive("x"))
  sensitive = true
}

output "lookup_two_arguments" {
  value = lookup({ a = "x" }, "a")
}
