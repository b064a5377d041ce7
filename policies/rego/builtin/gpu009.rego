# METADATA
# title: Commitment opportunity
# description: >-
#   An always-on resource runs on demand where a 1- or 3-year commitment (reserved instances,
#   savings plans, committed use) would cost less; names the best saving.
# custom:
#   id: GPU009
#   severity: notice
package gpuguard.builtin.gpu009

import data.gpuguard.lib

notice contains f if {
	some r in input.resources
	r.purchase_option == "on_demand"
	r.hours_per_month >= object.get(input, ["config", "hours_per_month"], 730) # all of the configured month
	# gpuguard lists recommendations by saving, largest first: the first commitment is the best.
	recs := [rec | some rec in r.recommendations; rec.kind == "commitment"]
	best := recs[0]
	f := {
		"msg": sprintf("%s runs all month on demand; a %s commitment would save %s%s a month", [r.address, term[best.purchase_option], gpuguard.dollars(best.monthly_saving), lib.star[best.price_estimated]]),
		"id": r.id,
		"remediation": "Buy a commitment (reserved instances, a savings plan, committed use) for the capacity that always runs.",
	}
}

term := {"reserved_1y": "1-year", "reserved_3y": "3-year"}
