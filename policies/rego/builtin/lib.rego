# Helpers shared by the built-in rules (not a rule: it has no id).
package gpuguard.lib

# dollars formats an amount of gpuguard's input as "$1,234.56", the way the reports print money.
# Amounts in the input always carry their cents ("587.50"), so rounding to cents is exact.
dollars(x) := sprintf("%s$%s.%s", [sign, grouped, frac]) if {
	cents := round(abs(x) * 100)
	sign := {true: "-", false: ""}[x < 0]
	whole := format_int(floor(cents / 100), 10)
	frac := substring(format_int(100 + (cents % 100), 10), 1, 2)
	grouped := group_thousands(whole)
}

# group_thousands puts a comma between each group of three digits: "1234567" → "1,234,567".
group_thousands(digits) := concat(",", array.concat([substring(digits, 0, first)], rest)) if {
	n := count(digits)
	first := n - (3 * floor((n - 1) / 3))
	rest := [substring(digits, j, 3) | some j in numbers.range(first, n - 1); j < n; ((j - first) % 3) == 0]
}
