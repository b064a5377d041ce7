# METADATA
# title: Unpriced or unresolved GPU resource
# description: >-
#   gpuguard could not price a GPU resource: its instance type or region is not in the catalog, a
#   value it needs is known only at apply time, or its cloud has retired the instance type or
#   the attached GPU. Its cost is missing from the totals.
# custom:
#   id: GPU006
#   severity: warn
package gpuguard.builtin.gpu006

warn contains f if {
	some r in input.resources
	r.monthly_cost == null
	f := {
		"msg": sprintf("%s is not priced: %s", [r.address, r.unpriced_reason]),
		"id": r.id,
		"remediation": remediation(r.unpriced_reason),
	}
}

# A retired instance type or GPU cannot be deployed at all: the fix is another one, not a price.
remediation(reason) := "Move to an instance type or GPU the cloud still offers (the reason names the successor it suggests, if any): a retired one cannot be deployed." if {
	contains(reason, " was retired by ")
} else := "Set the unresolved values (--var, tfvars), add the region to a price overlay (gpuguard pricing update), or check the instance type's name."
