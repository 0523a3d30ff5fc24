# locals, variable defaults of every type, and built-in functions.
terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

variable "project" {
  type    = string
  default = "tether"
}

variable "replicas" {
  type    = number
  default = 2
}

variable "enabled" {
  type    = bool
  default = true
}

variable "zones" {
  type    = list(string)
  default = ["b", "a", "c", "a"]
}

variable "tags" {
  type = map(string)
  default = {
    owner = "infra"
    tier  = "gold"
  }
}

variable "settings" {
  type = object({
    name    = string
    retries = number
    extra   = optional(string, "none")
  })
  default = {
    name    = "svc"
    retries = 3
  }
}

locals {
  # Each entry is one built-in function call, compared as an output.
  calls = {
    substr_neg    = substr("abcdef", -3, -1)
    chunk         = chunklist(["a", "b", "c"], 2)
    product       = setproduct(["a", "b"], ["1", "2"])
    compact       = compact(["a", "", "b"])
    sort_str      = sort(["10", "9", "a"])
    fmt           = format("%5.2f|%-4s|%q|%x|%d|%t|%v", 3.14159, "ab", "q", 255, 7, true, "v")
    fmtdate       = formatdate("YYYY-MM-DD hh:mm", "2024-01-02T03:04:05Z")
    indent        = indent(2, "a\nb")
    regex         = regex("^(\\w+)-(\\d+)$", "web-12")
    regexall      = regexall("[0-9]", "a1b2")
    trim          = trim("--x--", "-")
    trimsuffix    = trimsuffix("file.txt", ".txt")
    strrev        = strrev("héllo")
    tolist_set    = tolist(toset(["b", "a"]))
    json_html     = jsonencode("<>&")
    json_num      = jsonencode([1.5, 100000000000000000000, 0.1])
    join_empty    = join(",", [])
    sum           = sum([1, 2, 3.5])
    one_empty     = one([])
    alltrue       = alltrue([])
    anytrue       = anytrue([])
    starts        = startswith("hello", "he")
    ends          = endswith("hello", "lo")
    contains_str  = strcontains("hello", "ell")
    b64dec        = base64decode("dGV0aGVy")
    basename      = basename("a/b/c.txt")
    dirname       = dirname("a/b/c.txt")
    file          = file("input.txt")
    fileexists    = fileexists("nope.txt")
    lower         = lower("ÀB")
    title         = title("ab cd-ef")
    element_neg   = element(["a", "b", "c"], 5)
    keys_obj      = keys({ b = 1, a = 2 })
    values_obj    = values({ b = 1, a = 2 })
    merge_obj     = merge({ a = 1 }, { b = "x" })
    lookup_obj    = lookup({ a = "x" }, "b", "y")
    flatten       = flatten([[1, [2]], 3])
    distinct      = distinct([3, 1, 3])
    reverse       = reverse([1, 2])
    setsub        = setsubtract(["a", "b"], ["a"])
    setinter      = setintersection(["a", "b"], ["b", "c"])
    coalescelist  = coalescelist([], ["x"])
    tonumber      = tonumber("12.5")
    tostring      = tostring(5)
    tobool        = tobool("true")
    tomap         = tomap({ a = "1", b = 2 })
    try           = try(tonumber("x"), 0)
    can           = can(regex("x", "y"))
    csvdecode     = csvdecode("a,b\n1,2\n")
    zipmap        = zipmap(["a", "b"], [1, 2])
    log           = log(8, 2)
    length_str    = length("héllo")
    split_empty   = split(",", "")
    range_neg     = range(5, 0, -2)
    min_list      = min([3, 1]...)
    coalesce_num  = coalesce(null, 2)
    md5           = md5("é")
    sha512        = sha512("x")
    splat_null    = [for x in [null, 1] : x == null ? "null" : "v"]
    cond_types    = true ? 1 : "a"
    str_tmpl      = "%{for k, v in { b = 1, a = 2 } }${k}=${v};%{endfor}"
    heredoc_strip = <<-EOT
      x
        y
    EOT
  }
  upper_project = upper(var.project)
  title         = title("hello world")
  zones_sorted  = sort(distinct(var.zones))
  zone_set      = toset(var.zones)
  indexes       = range(var.replicas)
  steps         = range(1, 10, 3)
  merged        = merge(var.tags, { tier = "platinum", region = "eu" })
  looked_up     = lookup(local.merged, "region", "none")
  missing       = lookup(local.merged, "nothing", "default")
  names         = [for i in local.indexes : format("%s-%02d", var.project, i)]
  padded        = formatlist("[%5s]", local.zones_sorted)
  zipped        = zipmap(local.zones_sorted, range(length(local.zones_sorted)))
  flat          = flatten([["a", "b"], [], ["c", ["d"]]])
  joined        = join("+", concat(local.names, ["tail"]))
  splitted      = split(",", "x,y,,z")
  replaced      = replace("a-b-c", "-", "_")
  trimmed       = trimspace("  padded  ")
  prefix        = trimprefix("prefix-name", "prefix-")
  sub           = substr("abcdef", 1, 3)
  coalesced     = coalesce(null, "fallback")
  numbers       = [min(3, 1, 2), max(3, 1, 2), abs(-4), ceil(1.2), floor(1.8), pow(2, 10), parseint("ff", 16), signum(-3)]
  conditional   = var.enabled ? "on" : "off"
  contains_a    = contains(var.zones, "a")
  element_wrap  = element(local.zones_sorted, 4)
  reversed      = reverse(local.zones_sorted)
  sliced        = slice(local.names, 0, 1)
  keys_values   = "${join(",", keys(var.tags))}|${join(",", values(var.tags))}"
  encoded       = jsonencode({ project = var.project, replicas = var.replicas, tags = var.tags, list = [1, "two", true, null] })
  decoded       = jsondecode("{\"a\": [1, 2], \"b\": {\"c\": \"d\"}}")
  b64           = base64encode("tether")
  digests       = "${md5("x")} ${sha1("x")} ${sha256("x")}"
  lengths       = [length("héllo"), length(var.zones), length(var.tags)]
  setops        = sort(setunion(toset(["a", "b"]), toset(["c"])))
  tried         = try(local.merged.absent, "fallback")
  can_number    = can(tonumber("x")) ? "yes" : "no"
  optional_attr = var.settings.extra
  template      = <<-EOT
    %{~for i, z in local.zones_sorted~}
    zone ${i}: ${z}
    %{~endfor~}
    %{if var.enabled}enabled%{else}disabled%{endif}
  EOT
}

resource "tether_file" "report" {
  path = "out/report.txt"
  content = join("\n", [
    local.upper_project,
    local.title,
    local.joined,
    local.looked_up,
    local.missing,
    local.conditional,
    local.replaced,
    local.trimmed,
    local.prefix,
    local.sub,
    local.coalesced,
    local.element_wrap,
    local.keys_values,
    local.encoded,
    local.b64,
    local.digests,
    local.optional_attr,
    jsonencode(local.numbers),
    jsonencode(local.zipped),
    jsonencode(local.padded),
    jsonencode(local.flat),
    jsonencode(local.splitted),
    jsonencode(local.lengths),
    jsonencode(local.setops),
    jsonencode(local.decoded),
    jsonencode(local.steps),
    local.template,
  ])
}

resource "tether_file" "per_zone" {
  for_each = local.zone_set
  path     = "out/zones/${each.value}.txt"
  content  = "${local.upper_project} zone ${each.key} is #${local.zipped[each.key]}\n"
}

output "calls" {
  value = local.calls
}

output "names" {
  value = local.names
}

output "merged" {
  value = local.merged
}

output "numbers" {
  value = local.numbers
}

output "decoded" {
  value = local.decoded
}

output "settings" {
  value = var.settings
}

output "flags" {
  value = [local.contains_a, var.enabled, local.tried, local.can_number]
}

output "reversed" {
  value = local.reversed
}

output "sliced" {
  value = local.sliced
}
