# METADATA
# title: Unpriced or unresolved GPU resource
# description: >-
#   gpuguard could not price a GPU resource: its instance type or region is not in the catalog, a
#   value it needs is known only at apply time, its cloud has retired the instance type or the
#   attached GPU, or a pod can never run on its nodes (they cannot hold it, or the device plugin
#   refuses its request). Its cost is missing from the totals.
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
# A pod its node cannot hold, or whose request the device plugin refuses, never runs: the fix
# is its request or its node.
remediation(reason) := "Move to an instance type or GPU the cloud still offers (the reason names the successor it suggests, if any): a retired one cannot be deployed." if {
	contains(reason, " was retired by ")
} else := "Change the pod's GPU request or the nodes it selects, as the reason says: a pod that never runs has no cost to price, and its workload is not served." if {
	cannot_run(reason)
} else := "Set the unresolved values (--var, tfvars), add the region to a price overlay (gpuguard pricing update), or check the instance type's name."

cannot_run(reason) if contains(reason, "it cannot be scheduled there")

cannot_run(reason) if contains(reason, "never runs")
