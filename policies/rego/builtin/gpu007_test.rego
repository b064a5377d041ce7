package gpuguard.builtin.gpu007_test

import data.gpuguard.builtin.gpu007

test_missing_profile_notice if {
	fs := gpu007.notice with input as {"resources": [{"address": "a", "id": "stack|a", "profile": null}, {"address": "b", "id": "stack|b", "profile": "p.yaml"}]}
	{f.id | some f in fs} == {"stack|a"}
}

test_all_profiled if {
	fs := gpu007.notice with input as {"resources": [{"address": "b", "id": "stack|b", "profile": "p.yaml"}]}
	count(fs) == 0
}
