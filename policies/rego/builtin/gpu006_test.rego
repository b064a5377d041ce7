package gpuguard.builtin.gpu006_test

import data.gpuguard.builtin.gpu006

test_unpriced_warns if {
	fs := gpu006.warn with input as {"resources": [{"address": "a", "id": "stack|a", "monthly_cost": null, "unpriced_reason": "p9 is not in the catalog"}]}
	some f in fs
	f.msg == "a is not priced: p9 is not in the catalog"
	startswith(f.remediation, "Set the unresolved values")
}

test_retired_type_is_moved_not_priced if {
	reason := "Standard_NC6s_v3 was retired by Azure on 2025-09-30 (NCv3-series, NVIDIA V100): VMs of this size are stopped and new ones cannot be created; move to Standard_NC24ads_A100_v4"
	fs := gpu006.warn with input as {"resources": [{"address": "a", "id": "stack|a", "monthly_cost": null, "unpriced_reason": reason}]}
	count(fs) == 1
	some f in fs
	f.msg == sprintf("a is not priced: %s", [reason])
	startswith(f.remediation, "Move to an instance type or GPU the cloud still offers")
}

test_retired_gpu_is_moved_not_priced if {
	reason := "nvidia-tesla-k80 was retired by GCP on 2024-05-01 (NVIDIA Tesla K80): VMs with this GPU attached cannot be created or run; move to another GPU"
	fs := gpu006.warn with input as {"resources": [{"address": "a", "id": "stack|a", "monthly_cost": null, "unpriced_reason": reason}]}
	some f in fs
	startswith(f.remediation, "Move to an instance type or GPU the cloud still offers")
}

test_pod_that_never_runs_changes_its_request if {
	reasons := [
		"a pod requests 16 GPUs but p5.48xlarge has 8: it cannot be scheduled there",
		"a container asks for 2 units of nvidia.com/gpu, which NVIDIA's device plugin shares 4 to a GPU, and the plugin refuses a container more than one (its config sets failRequestsGreaterThanOne): the pod fails when its node admits it and never runs; ask for one unit a container, or for GPUs that are not shared",
	]
	every reason in reasons {
		fs := gpu006.warn with input as {"resources": [{"address": "a", "id": "stack|a", "monthly_cost": null, "unpriced_reason": reason}]}
		some f in fs
		startswith(f.remediation, "Change the pod's GPU request or the nodes it selects")
	}
}

test_priced_is_fine if {
	fs := gpu006.warn with input as {"resources": [{"address": "a", "id": "stack|a", "monthly_cost": 0.0, "unpriced_reason": null}]}
	count(fs) == 0
}
