package gpuguard.builtin.gpu008_test

import data.gpuguard.builtin.gpu008

test_mig_notice if {
	fs := gpu008.notice with input as {"resources": [{"address": "a", "id": "stack|a", "fit": {"mig_slice": "1g.10gb"}, "recommendations": [{"kind": "mig", "monthly_cost": 100.0, "monthly_saving": 600.0, "price_estimated": false}]}]}
	some f in fs
	f.msg == "a fits a 1g.10gb MIG slice: its share would cost $100.00 a month, saving $600.00"
}

test_no_slice if {
	fs := gpu008.notice with input as {"resources": [{"address": "a", "id": "stack|a", "fit": {"mig_slice": ""}}, {"address": "b", "id": "stack|b", "fit": null}]}
	count(fs) == 0
}
