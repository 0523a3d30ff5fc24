# Each output is one call of a collections function; terraform apply and tether up
# must give the same values.

output "element_0" {
  value = element(tolist(["a", "b", "c"]), -1)
}

output "element_1" {
  value = element(["a", "b", "c"], 4)
}

output "lookup_2" {
  value = lookup({a = 1, b = 2}, "b")
}

output "lookup_3" {
  value = lookup({a = 1}, "z", 0)
}

output "lookup_4" {
  value = lookup({a = "x"}, "a")
}

output "matchkeys_5" {
  value = matchkeys(["i-1", "i-2", "i-3"], ["us1", "us2", "us1"], ["us1"])
}

output "transpose_6" {
  value = transpose({a = ["1", "2"], b = ["2", "3"]})
}

output "sum_7" {
  value = sum([1, 2.5, 3])
}

output "sum_8" {
  value = sum(toset([5, 5, 6]))
}

output "alltrue_9" {
  value = alltrue([])
}

output "alltrue_10" {
  value = alltrue([true, null])
}

output "anytrue_11" {
  value = anytrue([false, null, true])
}

output "chunklist_12" {
  value = chunklist([1, 2, 3, 4, 5], 2)
}

output "coalesce_13" {
  value = coalesce("", null, "b")
}

output "coalescelist_14" {
  value = coalescelist([], ["x"])
}

output "compact_15" {
  value = compact(["a", "", "b"])
}

output "concat_16" {
  value = concat([1], [2, 3])
}

output "contains_17" {
  value = contains(["a"], "a")
}

output "distinct_18" {
  value = distinct([1, 1, 2])
}

output "flatten_19" {
  value = flatten([[1, [2]], [3]])
}

output "index_20" {
  value = index(["a", "b"], "b")
}

output "keys_21" {
  value = keys({b = 1, a = 2})
}

output "length_22" {
  value = length("héllo")
}

output "length_23" {
  value = length({a = 1, b = 2})
}

output "merge_24" {
  value = merge({a = 1}, {b = 2}, {a = 3})
}

output "one_25" {
  value = one([])
}

output "one_26" {
  value = one(["x"])
}

output "range_27" {
  value = range(1, 10, 3)
}

output "reverse_28" {
  value = reverse([1, 2, 3])
}

output "setintersection_29" {
  value = setintersection(["a", "b"], ["b", "c"])
}

output "setproduct_30" {
  value = setproduct(["a", "b"], [1, 2])
}

output "setsubtract_31" {
  value = setsubtract(["a", "b"], ["a"])
}

output "setunion_32" {
  value = setunion(["a"], ["b"])
}

output "slice_33" {
  value = slice(["a", "b", "c", "d"], 1, 3)
}

output "sort_34" {
  value = sort(["b", "a", "c"])
}

output "values_35" {
  value = values({b = 1, a = 2})
}

output "zipmap_36" {
  value = zipmap(["a", "b"], [1, 2])
}
