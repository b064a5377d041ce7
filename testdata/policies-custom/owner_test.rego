package gpuguard.acme.owner_test

import data.gpuguard.acme.owner

test_expensive_without_owner_denied if {
	count(owner.deny) == 1 with input as {"resources": [{"address": "a", "monthly_cost": 20000.0, "tags": {}}]}
}

test_owner_present_passes if {
	count(owner.deny) == 0 with input as {"resources": [{"address": "a", "monthly_cost": 20000.0, "tags": {"owner": "ana"}}]}
}

test_cheap_passes if {
	count(owner.deny) == 0 with input as {"resources": [{"address": "a", "monthly_cost": 50.0, "tags": {}}]}
}
