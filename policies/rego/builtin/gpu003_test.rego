package gpuguard.builtin.gpu003_test

import data.gpuguard.builtin.gpu003

test_oversized_names_the_alternative if {
	fs := gpu003.warn with input as {"resources": [{
		"address": "aws_instance.x", "id": "stack|aws_instance.x",
		"fit": {"verdict": "oversized", "reason": "uses 1 of the 8 GPUs it is given", "mig_slice": ""},
		"recommendations": [
			{"kind": "spot", "instance_type": "p4d.24xlarge", "monthly_cost": 6000.0, "monthly_saving": 10000.0, "price_estimated": true, "reason": "spot"},
			{"kind": "smaller_instance", "instance_type": "g6.xlarge", "monthly_cost": 587.5, "monthly_saving": 15441.57, "price_estimated": false, "reason": "1× g6.xlarge holds the workload"},
		],
	}]}
	count(fs) == 1
	some f in fs
	contains(f.msg, "g6.xlarge would cost $587.50 a month, saving $15,441.57")
	contains(f.remediation, "Move to g6.xlarge")
}

# A GCP N1 VM has no GPUs of its own: the alternative names the GPUs attached to it.
test_oversized_names_attached_gpus if {
	fs := gpu003.warn with input as {"resources": [{
		"address": "google_compute_instance.x", "id": "stack|google_compute_instance.x",
		"fit": {"verdict": "oversized", "reason": "uses 1 of the 4 GPUs it is given", "mig_slice": ""},
		"recommendations": [{
			"kind": "smaller_instance", "instance_type": "n1-standard-8", "accelerators": [{"type": "nvidia-tesla-t4", "count": 1}],
			"monthly_cost": 373.03, "monthly_saving": 536.55, "price_estimated": true, "reason": "1× n1-standard-8 with 1× nvidia-tesla-t4 holds the workload",
		}],
	}]}
	some f in fs
	contains(f.msg, "n1-standard-8 with 1× nvidia-tesla-t4 would cost $373.03* a month, saving $536.55*")
	contains(f.remediation, "Move to n1-standard-8 with 1× nvidia-tesla-t4:")
}

test_oversized_without_alternative if {
	fs := gpu003.warn with input as {"resources": [{"address": "x", "id": "stack|x", "fit": {"verdict": "oversized", "reason": "r", "mig_slice": "1g.10gb"}, "recommendations": []}]}
	some f in fs
	f.remediation == "Share the GPU: the workload fits a 1g.10gb MIG slice."
}

test_oversized_on_a_mig_slice_is_told_a_smaller_one if {
	fs := gpu003.warn with input as {"resources": [{"address": "x", "id": "stack|x", "gpu": {"mig_profile": "3g.40gb"}, "fit": {"verdict": "oversized", "reason": "r", "mig_slice": "1g.10gb"}, "recommendations": []}]}
	some f in fs
	f.remediation == "Use smaller MIG slices: the workload fits a 1g.10gb slice (it has 3g.40gb)."
}

test_right_sized_is_fine if {
	fs := gpu003.warn with input as {"resources": [{"address": "x", "id": "stack|x", "fit": {"verdict": "fits"}, "recommendations": []}]}
	count(fs) == 0
}

# Without a profile, pods kept one to a node on a 4-GPU node are told the 1-GPU node of the same
# GPUs; a resource without a profile and without that recommendation is not a finding.
test_pods_one_to_a_node_without_a_profile if {
	fs := gpu003.warn with input as {"resources": [
		{
			"address": "Deployment/serving/chat-ha", "id": "m.yaml|Deployment/serving/chat-ha",
			"fit": {"verdict": "unknown", "reason": "no workload profile"},
			"recommendations": [
				{"kind": "smaller_instance", "instance_type": "g6.xlarge", "monthly_cost": 1762.51, "monthly_saving": 8314.99, "price_estimated": false, "reason": "no two of its pods share a node, and each uses 1 of g6.12xlarge's 4 GPUs: a g6.xlarge (1× NVIDIA L4) holds one"},
				{"kind": "commitment", "instance_type": "g6.12xlarge", "monthly_cost": 5038.75, "monthly_saving": 5038.75, "price_estimated": false, "reason": "runs all month on demand"},
			],
		},
		{"address": "y", "id": "m.yaml|y", "fit": {"verdict": "unknown", "reason": "no workload profile"}, "recommendations": [{"kind": "commitment", "instance_type": "g6.12xlarge", "monthly_cost": 1.0, "monthly_saving": 1.0, "price_estimated": false, "reason": "r"}]},
	]}
	count(fs) == 1
	some f in fs
	f.msg == "Deployment/serving/chat-ha pays for GPUs its pods cannot use: no two of its pods share a node, and each uses 1 of g6.12xlarge's 4 GPUs: a g6.xlarge (1× NVIDIA L4) holds one; g6.xlarge would cost $1,762.51 a month, saving $8,314.99"
	startswith(f.remediation, "Move to g6.xlarge, or let more of the pods share a node")
}
