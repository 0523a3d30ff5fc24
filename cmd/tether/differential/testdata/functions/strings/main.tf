# Each output is one call of a strings function; terraform apply and tether up
# must give the same values.

output "upper_0" {
  value = upper("héllo")
}

output "core_lower_1" {
  value = core::lower("ABC")
}

output "format_2" {
  value = format("%s|%05.2f|%q", "x", 3.14159, "q")
}

output "format_3" {
  value = format("%v", tostring(null))
}

output "formatlist_4" {
  value = formatlist("%s=%d", ["a", "b"], [1, 2])
}

output "indent_5" {
  value = indent(2, "a\nb")
}

output "join_6" {
  value = join("-", ["a", "b"], ["c"])
}

output "replace_7" {
  value = replace("v1.2.3", "/(\\d+)/", "<$1>")
}

output "split_8" {
  value = split(",", "a,,b")
}

output "strrev_9" {
  value = strrev("héllo")
}

output "substr_10" {
  value = substr("hello world", -5, 3)
}

output "title_11" {
  value = title("hello world")
}

output "trim_12" {
  value = trim("?!hello?!", "!?")
}

output "trimprefix_13" {
  value = trimprefix("helloworld", "hello")
}

output "trimsuffix_14" {
  value = trimsuffix("helloworld", "world")
}

output "trimspace_15" {
  value = trimspace("  x \n")
}

output "chomp_16" {
  value = chomp("x\r\n")
}

output "startswith_17" {
  value = startswith("hello", "")
}

output "endswith_18" {
  value = endswith("hello", "lo")
}

output "strcontains_19" {
  value = strcontains("hello", "ell")
}

output "regex_20" {
  value = regex("^(?P<a>\\d+)-(?P<b>\\w+)$", "12-ab")
}

output "regexall_21" {
  value = regexall("[a-z]", "a1b2")
}

locals {
  tmpl = "Hello, $${upper(name)}! %%{ for n in nums }$${n * 2} %%{ endfor }"
}

output "templatestring" {
  value = templatestring(local.tmpl, { name = "web", nums = [1, 2] })
}
