# METADATA
# title: Expensive GPU resources need an owner tag
# description: Resources over $10,000 a month must say who approved them (tag owner).
# custom:
#   id: ACME001
#   severity: deny
package gpuguard.acme.owner

deny contains {"msg": msg, "address": r.address, "remediation": "Add an owner tag naming the approver."} if {
	some r in input.resources
	r.monthly_cost > 10000
	not r.tags.owner
	msg := sprintf("%s costs %s a month and has no owner tag", [r.address, data.gpuguard.lib.dollars(r.monthly_cost)])
}
