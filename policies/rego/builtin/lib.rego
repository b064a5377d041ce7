# Helpers shared by the built-in rules (not a rule: it has no id).
package gpuguard.lib

# dollars formats an amount of gpuguard's input as "$1234.56". Amounts in the input always carry
# their cents ("587.50", "600.00"), so sprintf formats them as decimals.
dollars(x) := sprintf("$%.2f", [x])
