package gpuguard.builtin.gpu002_test

import data.gpuguard.builtin.gpu002

test_does_not_fit_denied if {
	fs := gpu002.deny with input as {"resources": [{"address": "a", "id": "stack|a", "profile": "p.yaml", "fit": {"verdict": "does_not_fit", "reason": "needs 90 GiB", "cheapest_fit": {"instance_type": "p5en.48xlarge", "monthly_cost": 46206.08, "price_estimated": true}}}]}
	count(fs) == 1
	some f in fs
	contains(f.remediation, "Use p5en.48xlarge, the cheapest type that holds it ($46,206.08* a month)")
}

test_cheapest_fit_names_attached_gpus if {
	fs := gpu002.deny with input as {"resources": [{"address": "a", "id": "stack|a", "profile": "p.yaml", "fit": {"verdict": "does_not_fit", "reason": "needs 17.9 GiB", "cheapest_fit": {
		"instance_type": "n1-standard-8", "accelerators": [{"type": "nvidia-tesla-v100", "count": 1}], "monthly_cost": 1461.46, "price_estimated": true,
	}}}]}
	some f in fs
	contains(f.remediation, "Use n1-standard-8 with 1× nvidia-tesla-v100, the cheapest type that holds it ($1,461.46* a month)")
}

test_fits_is_fine if {
	fs := gpu002.deny with input as {"resources": [
		{"address": "a", "id": "stack|a", "fit": {"verdict": "fits"}},
		{"address": "b", "id": "stack|b", "fit": {"verdict": "tight"}},
		{"address": "c", "id": "stack|c", "fit": null},
	]}
	count(fs) == 0
}

test_cheapest_fit_on_larger_mig_slices if {
	fs := gpu002.deny with input as {"resources": [{"address": "a", "id": "stack|a", "profile": "p.yaml", "fit": {"verdict": "does_not_fit", "reason": "needs 17.9 GiB per GPU; NVIDIA A100 80GB MIG 1g.10gb has 9.3 GiB usable", "cheapest_fit": {
		"kind": "mig", "instance_type": "Standard_NC24ads_A100_v4", "mig_profile": "3g.40gb", "monthly_cost": 10725.16, "price_estimated": true,
		"reason": "partitioned into 3g.40gb MIG slices (2 a GPU instead of 7), 4 instances run the 7 copies that 1 instance runs now",
	}}}]}
	some f in fs
	startswith(f.remediation, "Use larger MIG slices, the cheapest way to hold it ($10,725.16* a month): partitioned into 3g.40gb MIG slices (2 a GPU instead of 7), 4 instances run the 7 copies that 1 instance runs now;")
}

test_does_not_fit_inferred_from_vllm if {
	fs := gpu002.deny with input as {"resources": [{"address": "big", "id": "k8s|big", "profile": null, "fit": {
		"verdict": "does_not_fit", "reason": "needs 79.8 GiB per GPU",
		"inferred_from": "vLLM arguments: model meta-llama/Llama-3.1-70B (preset llama-3.1-70b), --max-model-len 32768",
	}}]}
	[f] := [f | some f in fs]
	f.msg == "big: the workload (no profile; inferred from vLLM arguments: model meta-llama/Llama-3.1-70B (preset llama-3.1-70b), --max-model-len 32768) does not fit: needs 79.8 GiB per GPU"
}

test_context_too_long_names_the_longest_that_fits if {
	fs := gpu002.deny with input as {"resources": [{"address": "chat", "id": "k8s|chat", "profile": null, "fit": {
		"verdict": "does_not_fit", "reason": "needs 33.4 GiB per GPU", "max_context_tokens": 26112,
		"inferred_from": "vLLM arguments: model meta-llama/Llama-3.1-8B-Instruct (preset llama-3.1-8b)",
		"cheapest_fit": {"instance_type": "g6e.xlarge", "monthly_cost": 1358.6, "price_estimated": false},
	}}]}
	[f] := [f | some f in fs]
	f.remediation == "Limit the server's context to 26112 tokens or fewer (vLLM's --max-model-len; an estimate), or use g6e.xlarge, the cheapest type that holds the whole context ($1,358.60 a month)."
}

test_context_too_long_without_a_larger_type if {
	fs := gpu002.deny with input as {"resources": [{"address": "chat", "id": "k8s|chat", "profile": null, "fit": {
		"verdict": "does_not_fit", "reason": "needs 33.4 GiB per GPU", "max_context_tokens": 4096,
	}}]}
	[f] := [f | some f in fs]
	f.remediation == "Limit the server's context to 4096 tokens or fewer (vLLM's --max-model-len; an estimate), or shard the model further (tensor parallelism)."
}

test_serving_replica_is_told_serving_remedies if {
	fs := gpu002.deny with input as {"resources": [
		{"address": "a", "id": "k8s|a", "profile": null, "workload": {"type": "inference"}, "fit": {"verdict": "does_not_fit", "reason": "needs 25 GiB", "cheapest_fit": {"instance_type": "g6e.xlarge", "monthly_cost": 1358.53, "price_estimated": false}}},
		{"address": "b", "id": "k8s|b", "profile": "p.yaml", "workload": {"type": "inference"}, "fit": {"verdict": "does_not_fit", "reason": "needs 25 GiB"}},
	]}
	{f.remediation | some f in fs} == {
		"Use g6e.xlarge, the cheapest type that holds it ($1,358.53 a month), or split the model over more GPUs (tensor parallelism), quantize its weights or serve fewer sequences or a shorter context.",
		"Split the model over more GPUs (tensor parallelism), quantize its weights, serve fewer sequences or a shorter context, or use a GPU with more memory.",
	}
}

test_sglang_server_is_told_its_weights_fill_the_share if {
	sglang := {"verdict": "does_not_fit", "reason": "the weights take 65.7 GiB per GPU", "inferred_from": "SGLang arguments: model meta-llama/Llama-3.1-70B-Instruct (preset llama-3.1-70b)"}
	fs := gpu002.deny with input as {"resources": [
		{"address": "a", "id": "k8s|a", "profile": null, "workload": {"type": "inference"}, "fit": object.union(sglang, {"cheapest_fit": {"instance_type": "p5en.48xlarge", "monthly_cost": 11551.52, "price_estimated": false}})},
		{"address": "b", "id": "k8s|b", "profile": null, "workload": {"type": "inference"}, "fit": sglang},
	]}
	{f.remediation | some f in fs} == {
		"Use p5en.48xlarge, the cheapest type that holds it ($11,551.52 a month), or split the model over more GPUs (tensor parallelism) or quantize its weights, which alone fill SGLang's static share.",
		"Split the model over more GPUs (tensor parallelism), quantize its weights or use a GPU with more memory: its weights alone fill SGLang's static share.",
	}
}

test_mps_limit_fix_before_a_larger_type if {
	fs := gpu002.deny with input as {"resources": [{"address": "a", "id": "stack|a", "profile": null, "fit": {"verdict": "does_not_fit", "reason": "needs 16.9 GiB per GPU; gpu_memory_utilization 0.90 leaves 7.2 GiB of an MPS limit of 8 GiB on NVIDIA L4", "mps_limit_fix": {"config": "DeviceClass gpu-mps-8g", "limit": "19Gi"}, "cheapest_fit": {"instance_type": "g6.2xlarge", "monthly_cost": 713.65, "price_estimated": false}}}]}
	some f in fs
	f.remediation == "Raise the MPS memory limit (defaultPinnedDeviceMemoryLimit) in DeviceClass gpu-mps-8g's configuration to 19Gi: its GPU holds that, at no extra cost."
}
