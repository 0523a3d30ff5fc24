# Each output is one call of a hash and crypto function; terraform apply and tether up
# must give the same values.

output "md5_0" {
  value = md5("hello")
}

output "sha1_1" {
  value = sha1("hello")
}

output "sha256_2" {
  value = sha256("hello")
}

output "sha512_3" {
  value = sha512("hello")
}

output "base64sha256_4" {
  value = base64sha256("hello")
}

output "base64sha512_5" {
  value = base64sha512("hello")
}

output "filemd5_6" {
  value = filemd5("binary.bin")
}

output "filesha1_7" {
  value = filesha1("hello.txt")
}

output "filesha256_8" {
  value = filesha256("hello.txt")
}

output "filesha512_9" {
  value = filesha512("hello.txt")
}

output "filebase64sha256_10" {
  value = filebase64sha256("binary.bin")
}

output "filebase64sha512_11" {
  value = filebase64sha512("hello.txt")
}

output "uuidv5_12" {
  value = uuidv5("dns", "example.com")
}

output "uuidv5_13" {
  value = uuidv5("6ba7b811-9dad-11d1-80b4-00c04fd430c8", "https://example.com")
}
