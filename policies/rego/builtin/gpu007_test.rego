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

test_node_group_judged_on_its_pods if {
	fs := gpu007.notice with input as {"resources": [
		{"address": "pool", "id": "infra|pool", "profile": null, "pods_on_group": {"workloads": ["Deployment/ml/chat"], "profiled": true}},
		{"address": "other", "id": "infra|other", "profile": null, "pods_on_group": {"workloads": ["Deployment/ml/x", "Job/ml/y"], "profiled": false}},
		{"address": "Deployment/ml/chat", "id": "k8s|Deployment/ml/chat", "profile": "p.yaml", "node_group": "infra|pool"},
	]}
	{f.id | some f in fs} == {"infra|other"}
}

test_profile_inferred_from_a_vllm_server if {
	fs := gpu007.notice with input as {"resources": [
		{"address": "chat", "id": "k8s|chat", "profile": null, "fit": {"verdict": "fits", "inferred_from": "vLLM arguments: model x (preset llama-3.1-8b), --max-model-len 8192"}},
		{"address": "custom", "id": "k8s|custom", "profile": null, "fit": {"verdict": "unknown", "reason": "no workload profile attached; none could be inferred from the container's vLLM arguments"}},
	]}
	{f.id | some f in fs} == {"k8s|custom"}
}

test_says_why_no_profile_was_inferred if {
	fs := gpu007.notice with input as {"resources": [
		{"address": "custom", "id": "k8s|custom", "profile": null, "fit": {"verdict": "unknown", "reason": "no workload profile attached; none could be inferred from the container's vLLM arguments: vLLM serves /models/acme, which is not one of gpuguard's model presets"}},
		{"address": "plain", "id": "k8s|plain", "profile": null, "fit": {"verdict": "unknown", "reason": "no workload profile attached"}},
	]}
	{f.msg | some f in fs} == {
		"custom has no workload profile: its memory fit is unknown; none could be inferred from the container's vLLM arguments: vLLM serves /models/acme, which is not one of gpuguard's model presets",
		"plain has no workload profile: its memory fit is unknown",
	}
}

test_auto_provisioned_capacity_runs_no_workload_of_its_own if {
	fs := gpu007.notice with input as {"resources": [
		{"address": "c.cluster_autoscaling[\"nvidia-l4\"]", "id": "s|nap", "profile": null, "auto_provision": {"accelerator": "nvidia-l4", "max_gpus": 16, "from": "cluster_autoscaling.resource_limits nvidia-l4 maximum"}},
		{"address": "c.cluster_autoscaling[\"nvidia-h100-80gb\"]", "id": "s|unknown-max", "profile": null, "auto_provision": {"accelerator": "nvidia-h100-80gb", "max_gpus": null, "from": "x"}},
		{"address": "pool", "id": "s|pool", "profile": null},
	]}
	{f.id | some f in fs} == {"s|pool"}
}
