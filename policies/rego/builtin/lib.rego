# Helpers shared by the built-in rules (not a rule: it has no id).
package gpuguard.lib

# dollars formats an amount of gpuguard's input as "$1,234.56", the way the reports print money.
# It is gpuguard's builtin gpuguard.dollars, kept under this name for policies written against it.
dollars(x) := gpuguard.dollars(x)

# star marks an amount derived from an estimated price ("$353.90*"), as the reports do. Every
# resource and recommendation of the input says whether its price is estimated.
star := {true: "*", false: ""}
