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

test_total_at_max_over_budget if {
	fs := gpu001.deny with input as {"resources": [res("a", 600)], "totals": {"monthly_cost": 600.0, "max_monthly_cost": 6000.0}, "diff": null, "config": {"budgets": {"monthly_total": 1000.0, "monthly_total_at_max": 5000.0}}}
	count(fs) == 1
	some f in fs
	f.msg == "with every autoscaler at its declared maximum, GPU spend is $6,000.00 a month, over the budget of $5,000.00 (budgets.monthly_total_at_max)"
}

test_total_at_max_without_autoscalers_is_the_total if {
	fs := gpu001.deny with input as {"resources": [res("a", 6000)], "totals": {"monthly_cost": 6000.0}, "diff": null, "config": {"budgets": {"monthly_total_at_max": 5000.0}}}
	count(fs) == 1
	fine := gpu001.deny with input as {"resources": [res("a", 4000)], "totals": {"monthly_cost": 4000.0}, "diff": null, "config": {"budgets": {"monthly_total_at_max": 5000.0}}}
	count(fine) == 0
}

test_per_resource_at_max if {
	pool := object.union(res("pool", 0), {"scale_max": {"quantity": 40, "monthly_cost": 51909.6, "price_estimated": true, "from": "max_count"}})
	small := object.union(res("small", 100), {"scale_max": {"quantity": 2, "monthly_cost": 200, "price_estimated": false, "from": "max_size"}})
	fs := gpu001.deny with input as {"resources": [pool, small, res("fixed", 30000), res("cheap", 300)], "totals": {"monthly_cost": 30400.0}, "diff": null, "config": {"budgets": {"per_resource_monthly_at_max": 20000.0}}}
	count(fs) == 2
	some f in fs
	f.id == "stack|pool"
	f.msg == "pool can cost $51,909.60* a month at its declared maximum of 40 (max_count), over the per-resource budget at the maximum of $20,000.00 (budgets.per_resource_monthly_at_max)"
	some g in fs
	g.id == "stack|fixed"
	g.msg == "fixed costs $30,000.00 a month and does not autoscale, over the per-resource budget at the maximum of $20,000.00 (budgets.per_resource_monthly_at_max)"
}

# A total or a price that is a bound says so: the bill is at least (SageMaker) or at most
# (flex-start) the amount.
test_bounds_are_worded if {
	sm := object.union(res("sm", 900), {"price_bound": "lower", "price_estimated": true})
	flex := object.union(res("flex", 800), {"price_bound": "upper", "price_estimated": true})
	fs := gpu001.deny with input as {"resources": [sm, flex], "totals": {"monthly_cost": 900.0, "price_bound": "lower"}, "diff": null, "config": {"budgets": {"monthly_total": 500.0, "per_resource_monthly": 700.0}}}
	{f.msg | some f in fs} == {
		"GPU spend is at least $900.00 a month, over the budget of $500.00 (budgets.monthly_total)",
		"sm costs at least $900.00* a month, over the per-resource budget of $700.00 (budgets.per_resource_monthly)",
		"flex costs at most $800.00* a month, over the per-resource budget of $700.00 (budgets.per_resource_monthly)",
	}
}
