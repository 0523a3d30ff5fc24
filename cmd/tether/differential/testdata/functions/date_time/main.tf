# Each output is one call of a date and time function; terraform apply and tether up
# must give the same values.

output "formatdate_0" {
  value = formatdate("DD MMM YYYY hh:mm ZZZ", "2018-01-02T23:12:01Z")
}

output "timeadd_1" {
  value = timeadd("2017-11-22T00:00:00Z", "10m")
}

output "timecmp_2" {
  value = timecmp("2017-11-22T00:00:00Z", "2017-11-22T01:00:00+01:00")
}

output "timecmp_3" {
  value = timecmp("2017-11-22T00:00:00Z", "2017-11-22T00:00:01Z")
}

output "timecmp_4" {
  value = timecmp("2017-11-23T00:00:00Z", "2017-11-22T00:00:00Z")
}
