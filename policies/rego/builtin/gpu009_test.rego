package gpuguard.builtin.gpu009_test

import data.gpuguard.builtin.gpu009

test_commitment_notice_names_best if {
	fs := gpu009.notice with input as {"resources": [{"address": "a", "id": "stack|a", "purchase_option": "on_demand", "hours_per_month": 730, "recommendations": [
		{"kind": "commitment", "purchase_option": "reserved_3y", "monthly_saving": 300.0, "price_estimated": false},
		{"kind": "commitment", "purchase_option": "reserved_1y", "monthly_saving": 100.0, "price_estimated": false},
	]}]}
	some f in fs
	f.msg == "a runs all month on demand; a 3-year commitment would save $300.00 a month"
}

test_part_time_or_spot_is_fine if {
	fs := gpu009.notice with input as {"resources": [
		{"address": "a", "id": "stack|a", "purchase_option": "on_demand", "hours_per_month": 120, "recommendations": [{"kind": "commitment", "purchase_option": "reserved_1y", "monthly_saving": 100.0}]},
		{"address": "b", "id": "stack|b", "purchase_option": "spot", "hours_per_month": 730, "recommendations": []},
	]}
	count(fs) == 0
}

# The whole month is the configured month: 720 hours of a 720-hour month run all month, 720
# hours of the default 730-hour month do not.
test_configured_month if {
	r := {"address": "a", "id": "stack|a", "purchase_option": "on_demand", "hours_per_month": 720, "recommendations": [{"kind": "commitment", "purchase_option": "reserved_1y", "monthly_saving": 100.0, "price_estimated": false}]}
	count(gpu009.notice) == 1 with input as {"resources": [r], "config": {"hours_per_month": 720}}
	count(gpu009.notice) == 0 with input as {"resources": [r], "config": {"hours_per_month": 730}}
	count(gpu009.notice) == 0 with input as {"resources": [r]}
}
