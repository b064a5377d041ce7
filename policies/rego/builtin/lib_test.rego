package gpuguard.lib_test

import data.gpuguard.lib

test_dollars if {
	lib.dollars(500.00) == "$500.00"
	lib.dollars(587.5) == "$587.50"
	lib.dollars(15441.57) == "$15441.57"
	lib.dollars(0.05) == "$0.05"
}

test_dollars_negative if {
	lib.dollars(-12.34) == "$-12.34"
}
