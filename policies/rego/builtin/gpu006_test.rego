package gpuguard.builtin.gpu006_test

import data.gpuguard.builtin.gpu006

test_unpriced_warns if {
	fs := gpu006.warn with input as {"resources": [{"address": "a", "id": "stack|a", "monthly_cost": null, "unpriced_reason": "p9 is not in the catalog"}]}
	some f in fs
	f.msg == "a is not priced: p9 is not in the catalog"
}

test_priced_is_fine if {
	fs := gpu006.warn with input as {"resources": [{"address": "a", "id": "stack|a", "monthly_cost": 0.0, "unpriced_reason": null}]}
	count(fs) == 0
}
