package gpuguard.lib_test

import data.gpuguard.lib

test_dollars if {
	lib.dollars(500.00) == "$500.00"
	lib.dollars(587.5) == "$587.50"
	lib.dollars(15441.57) == "$15,441.57"
	lib.dollars(0.05) == "$0.05"
	lib.dollars(0) == "$0.00"
	lib.dollars(999.999) == "$1,000.00"
	lib.dollars(1234567.8) == "$1,234,567.80"
	lib.dollars(100000) == "$100,000.00"
}

test_dollars_negative if {
	lib.dollars(-12.34) == "-$12.34"
	lib.dollars(-4800.5) == "-$4,800.50"
	lib.dollars(-0.001) == "$0.00"
}

# Numbers outside money's exact range or written with an exponent still format.
test_dollars_any_number if {
	gpuguard.dollars(1e3) == "$1,000.00"
	gpuguard.dollars(12345678901234567.895) == "$12,345,678,901,234,567.90"
	gpuguard.dollars(-2.5e-2) == "-$0.03"
	gpuguard.dollars(1.005) == "$1.01"
}

test_node if {
	lib.node({"instance_type": "g6.xlarge"}) == "g6.xlarge"
	lib.node({"instance_type": "n1-standard-8", "accelerators": [{"type": "nvidia-tesla-t4", "count": 1}]}) == "n1-standard-8 with 1× nvidia-tesla-t4"
}

test_bound if {
	lib.bound({"price_bound": "lower"}) == "at least "
	lib.bound({"price_bound": "upper"}) == "at most "
	lib.bound({"monthly_cost": 1}) == ""
	lib.bound({"price_bound": "sideways"}) == ""
}
