package gpuguard.builtin.gpu007_test

import data.gpuguard.builtin.gpu007

test_missing_profile_notice if {
	fs := gpu007.notice with input as {"resources": [{"address": "a", "profile": null}, {"address": "b", "profile": "p.yaml"}]}
	{f.address | some f in fs} == {"a"}
}

test_all_profiled if {
	fs := gpu007.notice with input as {"resources": [{"address": "b", "profile": "p.yaml"}]}
	count(fs) == 0
}
