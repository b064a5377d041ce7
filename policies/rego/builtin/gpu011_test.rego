package gpuguard.builtin.gpu011_test

import data.gpuguard.builtin.gpu011

group(needed, at_max, most) := {"address": "pool", "id": "infra|pool", "pods_on_group": {
	"workloads": ["Deployment/ml/chat", "Job/ml/train"],
	"nodes_needed": needed, "nodes_needed_at_max": at_max, "max_nodes": most,
}}

test_pods_past_the_groups_maximum_warn if {
	fs := gpu011.warn with input as {"resources": [group(5, 7, 3)]}
	count(fs) == 1
	some f in fs
	f.id == "infra|pool"
	f.msg == "pool cannot hold the pods that run on it: the pods of Deployment/ml/chat, Job/ml/train need at least 5 nodes and it has at most 3, so some pods would stay Pending"
	contains(f.remediation, "Raise the group's maximum")
}

test_replicas_past_the_groups_maximum_warn if {
	fs := gpu011.warn with input as {"resources": [group(3, 4, 3)]}
	count(fs) == 1
	some f in fs
	contains(f.msg, "at their autoscalers' maximums: the pods of Deployment/ml/chat, Job/ml/train need at least 4 nodes there and it has at most 3")
}

test_pods_within_the_group_are_fine if {
	fs := gpu011.warn with input as {"resources": [
		group(3, 3, 3),
		group(1, 2, 4),
		{"address": "other", "id": "other", "pods_on_group": null},
		group(5, 5, null), # its maximum is known only at apply
		{"address": "plain", "id": "plain"},
	]}
	count(fs) == 0
}

test_groups_the_pods_share_are_judged_once if {
	shared := {"workloads": ["Deployment/ml/chat"], "groups": ["infra|a", "infra|b"], "nodes_needed": 6, "nodes_needed_at_max": 6, "max_nodes": 5}
	fs := gpu011.warn with input as {"resources": [
		{"address": "a", "id": "infra|a", "pods_on_group": shared},
		{"address": "b", "id": "infra|b", "pods_on_group": shared},
	]}
	{f.id | some f in fs} == {"infra|a"}
	some f in fs
	f.msg == "a cannot hold the pods that run on it: the pods of Deployment/ml/chat need at least 6 nodes and a, b together have at most 5, so some pods would stay Pending"
}
