# METADATA
# title: GPU spend over budget
# description: >-
#   The monthly GPU total of the head is over budgets.monthly_total, a diff raises it by more
#   than budgets.monthly_increase, or one resource costs more than budgets.per_resource_monthly.
#   budgets.monthly_total_at_max and budgets.per_resource_monthly_at_max hold the total and each
#   resource to a line with every autoscaled resource at its declared maximum (max_size,
#   max_count, maxReplicas), where the other budgets see the floor it is priced at. Budgets that
#   are not set are not checked.
# custom:
#   id: GPU001
#   severity: deny
package gpuguard.builtin.gpu001

import data.gpuguard.lib

budgets := object.get(input.config, "budgets", {})

deny contains f if {
	limit := budgets.monthly_total
	limit != null
	input.totals.monthly_cost > limit
	f := {
		"msg": sprintf("GPU spend is %s%s a month, over the budget of %s (budgets.monthly_total)", [lib.bound(input.totals), gpuguard.dollars(input.totals.monthly_cost), gpuguard.dollars(limit)]),
		"remediation": "Reduce or right-size the GPU resources above, or raise budgets.monthly_total with the owner's approval.",
	}
}

deny contains f if {
	limit := budgets.monthly_increase
	limit != null
	input.diff != null
	delta := input.diff.totals.monthly_delta
	delta > limit
	f := {
		"msg": sprintf("this change adds %s a month of GPU spend, over the allowed increase of %s (budgets.monthly_increase)", [gpuguard.dollars(delta), gpuguard.dollars(limit)]),
		"remediation": "Split the change, use spot or smaller instances (see the recommendations), or get the increase approved and raise budgets.monthly_increase.",
	}
}

deny contains f if {
	limit := budgets.per_resource_monthly
	limit != null
	some r in input.resources
	r.monthly_cost != null
	r.monthly_cost > limit
	f := {
		"msg": sprintf("%s costs %s%s%s a month, over the per-resource budget of %s (budgets.per_resource_monthly)", [r.address, lib.bound(r), gpuguard.dollars(r.monthly_cost), lib.star[r.price_estimated], gpuguard.dollars(limit)]),
		"id": r.id,
		"remediation": "Right-size this resource or split it; see its recommendations.",
	}
}

deny contains f if {
	limit := budgets.monthly_total_at_max
	limit != null
	total := object.get(input.totals, "max_monthly_cost", input.totals.monthly_cost)
	total > limit
	f := {
		"msg": sprintf("with every autoscaler at its declared maximum, GPU spend is %s%s a month, over the budget of %s (budgets.monthly_total_at_max)", [lib.bound(input.totals), gpuguard.dollars(total), gpuguard.dollars(limit)]),
		"remediation": "Lower the autoscalers' maximums (max_size, max_count, maxReplicas), or raise budgets.monthly_total_at_max with the owner's approval.",
	}
}

deny contains f if {
	limit := budgets.per_resource_monthly_at_max
	limit != null
	some r in input.resources
	r.scale_max.monthly_cost > limit
	f := {
		"msg": sprintf("%s can cost %s%s%s a month at its declared maximum of %d (%s), over the per-resource budget at the maximum of %s (budgets.per_resource_monthly_at_max)", [r.address, lib.bound(r), gpuguard.dollars(r.scale_max.monthly_cost), lib.star[r.scale_max.price_estimated], r.scale_max.quantity, r.scale_max.from, gpuguard.dollars(limit)]),
		"id": r.id,
		"remediation": "Lower this resource's maximum, or raise budgets.per_resource_monthly_at_max with the owner's approval.",
	}
}

deny contains f if {
	limit := budgets.per_resource_monthly_at_max
	limit != null
	some r in input.resources
	not r.scale_max
	r.monthly_cost != null
	r.monthly_cost > limit
	f := {
		"msg": sprintf("%s costs %s%s%s a month and does not autoscale, over the per-resource budget at the maximum of %s (budgets.per_resource_monthly_at_max)", [r.address, lib.bound(r), gpuguard.dollars(r.monthly_cost), lib.star[r.price_estimated], gpuguard.dollars(limit)]),
		"id": r.id,
		"remediation": "Right-size this resource or split it; see its recommendations.",
	}
}
