# Helpers shared by the built-in rules (not a rule: it has no id).
package gpuguard.lib

# dollars formats an amount of gpuguard's input as "$1,234.56", the way the reports print money.
# It is gpuguard's builtin gpuguard.dollars, kept under this name for policies written against it.
dollars(x) := gpuguard.dollars(x)

# star marks an amount derived from an estimated price ("$353.90*"), as the reports do. Every
# resource and recommendation of the input says whether its price is estimated.
star := {true: "*", false: ""}

# bound words a price that is a bound rather than an estimate of the bill (a resource's or the
# totals' price_bound): "at least " when the service bills above the catalog's price (SageMaker,
# Vertex AI prediction), "at most " when the capacity bills below it (flex-start), else "".
bound(x) := words if {
	words := {"lower": "at least ", "upper": "at most "}[x.price_bound]
} else := ""

# node names what a recommendation runs on: its instance type, with the GPUs attached to it when
# it is a GCP N1 VM, which has none of its own ("n1-standard-8 with 1× nvidia-tesla-t4").
node(alt) := sprintf("%s with %d× %s", [alt.instance_type, a.count, a.type]) if {
	a := alt.accelerators[0]
} else := alt.instance_type
