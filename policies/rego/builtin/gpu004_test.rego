package gpuguard.builtin.gpu004_test

import data.gpuguard.builtin.gpu004

spot_rec(saving) := {"kind": "spot", "monthly_saving": saving, "price_estimated": true}

test_interruptible_on_demand_warns if {
	fs := gpu004.warn with input as {"config": {}, "resources": [{"address": "a", "id": "stack|a", "purchase_option": "on_demand", "workload": {"type": "training", "interruptible": true}, "recommendations": [spot_rec(500)]}]}
	count(fs) == 1
	some f in fs
	f.msg == "a runs an interruptible training workload on demand; spot would save $500.00* a month"
}

test_small_saving_is_ignored if {
	fs := gpu004.warn with input as {"config": {"policy_data": {"spot_saving_min_monthly": 1000}}, "resources": [{"address": "a", "id": "stack|a", "purchase_option": "on_demand", "workload": {"type": "batch", "interruptible": true}, "recommendations": [spot_rec(500)]}]}
	count(fs) == 0
}

test_not_interruptible_is_fine if {
	fs := gpu004.warn with input as {"config": {}, "resources": [{"address": "a", "id": "stack|a", "purchase_option": "on_demand", "workload": {"type": "training", "interruptible": false}, "recommendations": [spot_rec(500)]}]}
	count(fs) == 0
}

test_latency_sensitive_on_spot_denied if {
	fs := gpu004.deny with input as {"config": {}, "resources": [
		{"address": "spot", "id": "stack|spot", "purchase_option": "spot", "workload": {"type": "inference", "latency_sensitive": true}},
		{"address": "mixed", "id": "stack|mixed", "purchase_option": "on_demand", "capacity_split": {"on_demand": 2, "spot": 1}, "workload": {"type": "inference", "latency_sensitive": true}},
		{"address": "fine", "id": "stack|fine", "purchase_option": "on_demand", "workload": {"type": "inference", "latency_sensitive": true}},
	]}
	{f.id | some f in fs} == {"stack|spot", "stack|mixed"}
}
