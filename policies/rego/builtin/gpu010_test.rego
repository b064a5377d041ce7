package gpuguard.builtin.gpu010_test

import data.gpuguard.builtin.gpu010

sup(rule, status) := {"rule": rule, "status": status, "source": {"file": "main.tf", "line": 3}}

test_invalid_suppressions_warn if {
	fs := gpu010.warn with input as {"resources": [{"address": "a", "id": "stack|a", "suppressions": [sup("GPU003", "expired"), sup("GPU004", "no_reason"), sup("GPU005", "active")]}]}
	count(fs) == 2
	some f in fs
	f.msg == "a: the suppression of GPU003 has expired, so it waives nothing"
	f.line == 3
}

test_active_suppressions_are_fine if {
	fs := gpu010.warn with input as {"resources": [{"address": "a", "id": "stack|a", "suppressions": [sup("GPU003", "active")]}, {"address": "b", "id": "stack|b"}]}
	count(fs) == 0
}
