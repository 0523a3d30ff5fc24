# Each output is one call of a numbers function; terraform apply and tether up
# must give the same values.

output "abs_0" {
  value = abs(-3.5)
}

output "ceil_1" {
  value = ceil(1.2)
}

output "floor_2" {
  value = floor(-1.2)
}

output "log_3" {
  value = log(8, 2)
}

output "max_4" {
  value = max(1, 5, 3)
}

output "min_5" {
  value = min(1, 5, 3)
}

output "parseint_6" {
  value = parseint("ff", 16)
}

output "pow_7" {
  value = pow(2, 10)
}

output "signum_8" {
  value = signum(-7)
}
