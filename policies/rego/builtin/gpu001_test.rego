package gpuguard.builtin.gpu001_test

import data.gpuguard.builtin.gpu001

res(addr, cost) := {"address": addr, "id": concat("|", ["stack", addr]), "monthly_cost": cost, "price_estimated": false}

test_total_over_budget if {
	fs := gpu001.deny with input as {"resources": [res("a", 600)], "totals": {"monthly_cost": 600.0}, "diff": null, "config": {"budgets": {"monthly_total": 500.0}}}
	count(fs) == 1
	some f in fs
	contains(f.msg, "over the budget of $500.00")
}

test_total_within_budget if {
	fs := gpu001.deny with input as {"resources": [res("a", 400)], "totals": {"monthly_cost": 400.0}, "diff": null, "config": {"budgets": {"monthly_total": 500.0}}}
	count(fs) == 0
}

test_no_budgets_no_findings if {
	fs := gpu001.deny with input as {"resources": [res("a", 1e9)], "totals": {"monthly_cost": 1e9}, "diff": null, "config": {}}
	count(fs) == 0
}

test_increase_over_budget if {
	fs := gpu001.deny with input as {"resources": [], "totals": {"monthly_cost": 0.0}, "diff": {"totals": {"monthly_delta": 7000.0}}, "config": {"budgets": {"monthly_increase": 5000.0}}}
	count(fs) == 1
}

test_decrease_is_fine if {
	fs := gpu001.deny with input as {"resources": [], "totals": {"monthly_cost": 0.0}, "diff": {"totals": {"monthly_delta": -7000.0}}, "config": {"budgets": {"monthly_increase": 5000.0}}}
	count(fs) == 0
}

test_per_resource if {
	fs := gpu001.deny with input as {"resources": [res("big", 30000), res("small", 100), {"address": "unpriced", "id": "stack|unpriced", "monthly_cost": null}], "totals": {"monthly_cost": 30100.0}, "diff": null, "config": {"budgets": {"per_resource_monthly": 20000.0}}}
	count(fs) == 1
	some f in fs
	f.id == "stack|big"
	f.msg == "big costs $30,000.00 a month, over the per-resource budget of $20,000.00 (budgets.per_resource_monthly)"
}

test_per_resource_estimate_is_marked if {
	fs := gpu001.deny with input as {"resources": [object.union(res("pods", 30000), {"price_estimated": true})], "totals": {"monthly_cost": 30000.0}, "diff": null, "config": {"budgets": {"per_resource_monthly": 20000.0}}}
	some f in fs
	contains(f.msg, "costs $30,000.00* a month")
}
