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

test_pod_on_a_larger_slice_is_told_which_to_request if {
	fs := gpu008.notice with input as {"resources": [{
		"address": "Deployment/serving/medium", "id": "m.yaml|Deployment/serving/medium",
		"gpu": {"mig_profile": "3g.40gb"}, "pod": {"resource": "nvidia.com/mig-3g.40gb"},
		"fit": {"mig_slice": "1g.10gb"},
		"recommendations": [{"kind": "mig", "mig_profile": "1g.10gb", "monthly_cost": 500.0, "monthly_saving": 1251.52, "price_estimated": false}],
	}]}
	some f in fs
	f.msg == "Deployment/serving/medium fits a 1g.10gb MIG slice, smaller than its 3g.40gb: its share would cost $500.00 a month, saving $1,251.52"
	f.remediation == "Request nvidia.com/mig-1g.10gb instead of nvidia.com/mig-3g.40gb."
}

test_pod_on_a_partitioned_pool_is_told_to_move if {
	fs := gpu008.notice with input as {"resources": [{
		"address": "Deployment/serving/medium", "id": "m.yaml|Deployment/serving/medium",
		"gpu": {"mig_profile": "3g.40gb"}, "pod": {"resource": "nvidia.com/gpu"},
		"fit": {"mig_slice": "1g.10gb"},
	}]}
	some f in fs
	f.msg == "Deployment/serving/medium fits a 1g.10gb MIG slice, smaller than its 3g.40gb"
	f.remediation == "Run it on nodes whose GPUs are partitioned into 1g.10gb slices instead of 3g.40gb."
}

test_partitioned_node_pool_is_told_to_repartition if {
	fs := gpu008.notice with input as {"resources": [{
		"address": "google_container_node_pool.mig", "id": "stack|google_container_node_pool.mig",
		"gpu": {"mig_profile": "3g.40gb"}, "pod": null,
		"fit": {"mig_slice": "1g.10gb"},
		"recommendations": [{"kind": "mig", "mig_profile": "1g.10gb", "monthly_cost": 64597.70, "monthly_saving": 64597.70, "price_estimated": false}],
	}]}
	some f in fs
	f.msg == "google_container_node_pool.mig fits a 1g.10gb MIG slice, smaller than its 3g.40gb: repartitioned so, it would cost $64,597.70 a month, saving $64,597.70"
	f.remediation == "Partition the GPUs into 1g.10gb slices instead of 3g.40gb."
}

test_whole_gpu_is_told_to_partition if {
	fs := gpu008.notice with input as {"resources": [{"address": "a", "id": "stack|a", "gpu": {"model": "NVIDIA A100 80GB"}, "fit": {"mig_slice": "2g.20gb"}}]}
	some f in fs
	f.msg == "a fits a 2g.20gb MIG slice"
	f.remediation == "Partition the GPUs with MIG and request nvidia.com/mig-2g.20gb."
}

# A pod whose GPUs come through DRA claims is told to change its claim, not to request a device
# plugin's resource.
dra_pod := {"address": "a", "id": "stack|a", "fit": {"mig_slice": "1g.10gb"}, "pod": {"resource": "nvidia.com/gpu", "claimed_only": true}}

test_dra_claim_whole_gpu if {
	fs := gpu008.notice with input as {"resources": [dra_pod]}
	some f in fs
	f.remediation == `Claim a 1g.10gb MIG device instead of a whole GPU: DeviceClass mig.nvidia.com, with device.attributes["gpu.nvidia.com"].profile == "1g.10gb" in the claim's selector.`
}

test_dra_claim_slice if {
	sliced := object.union(dra_pod, {"gpu": {"mig_profile": "3g.40gb"}, "pod": {"resource": "nvidia.com/mig-3g.40gb", "claimed_only": true}})
	fs := gpu008.notice with input as {"resources": [sliced]}
	some f in fs
	f.remediation == `Claim a 1g.10gb MIG device instead of the 3g.40gb one: device.attributes["gpu.nvidia.com"].profile == "1g.10gb" in the claim's selector.`
}

test_device_plugin_pod if {
	plugin := object.union(dra_pod, {"pod": {"resource": "nvidia.com/gpu", "claimed_only": false}})
	fs := gpu008.notice with input as {"resources": [plugin]}
	some f in fs
	f.remediation == "Partition the GPUs with MIG and request nvidia.com/mig-1g.10gb."
}
