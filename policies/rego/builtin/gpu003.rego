# METADATA
# title: Oversized GPU
# description: >-
#   The workload uses a small share of the GPU's memory (under policy_data.oversized_memory_fraction,
#   40% by default), fewer GPUs than the resource gives it, or (measured) under
#   policy_data.oversized_utilization_percent (25%) of the GPU. Names the cheapest instance that
#   holds it and the monthly saving. Without a workload profile, pods that no two of may share a
#   node (a required pod anti-affinity on the hostname, a host port), or no more than maxSkew of
#   (a topology spread on the hostname, under Karpenter), on nodes with more GPUs than those pods
#   use are told the smaller node of the same GPUs that holds them.
# custom:
#   id: GPU003
#   severity: warn
package gpuguard.builtin.gpu003

import data.gpuguard.lib

warn contains f if {
	some r in input.resources
	r.fit.verdict == "oversized"
	f := finding(r)
}

# Without a profile (verdict unknown) the estimator recommends a smaller instance only for pods
# kept one (or a few) to a node, on the same GPUs: each pays for GPUs it cannot use.
warn contains f if {
	some r in input.resources
	r.fit.verdict == "unknown"
	some alt in r.recommendations
	alt.kind == "smaller_instance"
	node := lib.node(alt)
	f := {
		"msg": sprintf("%s pays for GPUs its pods cannot use: %s; %s would cost %s%s a month, saving %s%s", [r.address, alt.reason, node, gpuguard.dollars(alt.monthly_cost), lib.star[alt.price_estimated], gpuguard.dollars(alt.monthly_saving), lib.star[alt.price_estimated]]),
		"id": r.id,
		"remediation": sprintf("Move to %s, or let more of the pods share a node (a preferred anti-affinity for a required one; a larger maxSkew, or a smaller minDomains, for a topology spread on the hostname; a Service instead of a host port).", [node]),
	}
}

# The estimator gives at most one smaller_instance recommendation: the cheapest type that holds
# the workload.
finding(r) := {
	"msg": sprintf("%s is oversized: %s; %s would cost %s%s a month, saving %s%s", [r.address, r.fit.reason, node, gpuguard.dollars(alt.monthly_cost), lib.star[alt.price_estimated], gpuguard.dollars(alt.monthly_saving), lib.star[alt.price_estimated]]),
	"id": r.id,
	"remediation": sprintf("Move to %s: %s.", [node, alt.reason]),
} if {
	some alt in r.recommendations
	alt.kind == "smaller_instance"
	node := lib.node(alt)
} else := {
	"msg": sprintf("%s is oversized: %s", [r.address, r.fit.reason]),
	"id": r.id,
	"remediation": remediation_without_alternative(r),
}

remediation_without_alternative(r) := sprintf("Use smaller MIG slices: the workload fits a %s slice (it has %s).", [r.fit.mig_slice, r.gpu.mig_profile]) if {
	r.fit.mig_slice != ""
	r.gpu.mig_profile != ""
} else := sprintf("Share the GPU: the workload fits a %s MIG slice.", [r.fit.mig_slice]) if {
	r.fit.mig_slice != ""
} else := "Request fewer or smaller GPUs, or pack more work onto them."
