package gpuguard.builtin.gpu002_test

import data.gpuguard.builtin.gpu002

test_does_not_fit_denied if {
	fs := gpu002.deny with input as {"resources": [{"address": "a", "id": "stack|a", "profile": "p.yaml", "fit": {"verdict": "does_not_fit", "reason": "needs 90 GiB", "cheapest_fit": {"instance_type": "p5en.48xlarge", "monthly_cost": 46206.08}}}]}
	count(fs) == 1
	some f in fs
	contains(f.remediation, "p5en.48xlarge")
}

test_fits_is_fine if {
	fs := gpu002.deny with input as {"resources": [
		{"address": "a", "id": "stack|a", "fit": {"verdict": "fits"}},
		{"address": "b", "id": "stack|b", "fit": {"verdict": "tight"}},
		{"address": "c", "id": "stack|c", "fit": null},
	]}
	count(fs) == 0
}
