# Each output is one call of a encoding function; terraform apply and tether up
# must give the same values.

output "base64encode_0" {
  value = base64encode("Hello, World!")
}

output "base64decode_1" {
  value = base64decode("SGVsbG8sIFdvcmxkIQ==")
}

output "base64gzip_2" {
  value = base64gzip("hello world")
}

output "csvdecode_3" {
  value = csvdecode("a,b\n1,2\n")
}

output "jsondecode_4" {
  value = jsondecode("{\"a\":[1,true,null]}")
}

output "jsonencode_5" {
  value = jsonencode({b = [1, "x"], a = null})
}

output "textencodebase64_6" {
  value = textencodebase64("Hello World", "UTF-16LE")
}

output "textdecodebase64_7" {
  value = textdecodebase64("SABlAGwAbABvACAAVwBvAHIAbABkAA==", "UTF-16LE")
}

output "textencodebase64_8" {
  value = textencodebase64("héllo", "ISO-8859-1")
}

output "urlencode_9" {
  value = urlencode("a b/c?d=é&e")
}

output "yamlencode_10" {
  value = yamlencode({a = [1, "x", true, null], b = {c = "multi\nline"}})
}

output "yamldecode_11" {
  value = yamldecode("a: [1, x, true, null]\nb:\n  c: 1.5\n")
}

output "yamldecode_12" {
  value = yamldecode("- !!str 1\n- 0x10\n- ~\n")
}
