# METADATA
# title: Spot capacity mismatch
# description: >-
#   An interruptible training or batch workload runs on demand although spot would save more than
#   policy_data.spot_saving_min_monthly (default $100) a month (warn); or latency-sensitive serving
#   runs on spot capacity that can be reclaimed at any time (deny).
# custom:
#   id: GPU004
#   severity: warn
package gpuguard.builtin.gpu004

import data.gpuguard.lib

min_saving := object.get(object.get(input.config, "policy_data", {}), "spot_saving_min_monthly", 100)

interruptible_types := {"training", "batch"}

warn contains f if {
	some r in input.resources
	r.workload.interruptible == true
	interruptible_types[r.workload.type]
	some rec in r.recommendations
	rec.kind == "spot"
	rec.monthly_saving >= min_saving
	f := {
		"msg": sprintf("%s runs an interruptible %s workload on demand; spot would save %s%s a month", [r.address, r.workload.type, gpuguard.dollars(rec.monthly_saving), lib.star[rec.price_estimated]]),
		"id": r.id,
		"remediation": "Use spot capacity (capacity_type = \"SPOT\", instance_market_options, provisioning_model = \"SPOT\", priority = \"Spot\", karpenter.sh/capacity-type: spot) and keep checkpointing.",
	}
}

# Latency-sensitive serving on capacity that can be taken back at two minutes' notice.
deny contains f if {
	some r in input.resources
	r.workload.latency_sensitive == true
	on_spot(r)
	f := {
		"msg": sprintf("%s serves latency-sensitive traffic on spot capacity, which can be reclaimed at any time", [r.address]),
		"id": r.id,
		"remediation": "Run serving on on-demand or reserved capacity; keep spot for interruptible work.",
		"severity": "deny",
	}
}

on_spot(r) if r.purchase_option == "spot"

on_spot(r) if r.capacity_split.spot > 0
