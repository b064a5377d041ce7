package gpuguard.builtin.gpu012_test

import data.gpuguard.builtin.gpu012

group(id, extra) := object.union({"address": id, "id": sprintf("infra|%s", [id]), "monthly_cost": 730, "price_estimated": false}, extra)

test_group_without_driver_warns if {
	fs := gpu012.warn with input as {"resources": [
		group("aws_eks_node_group.gpu", {"no_gpu_driver": "ami_type = \"AL2023_x86_64_STANDARD\", an EKS AMI type without the NVIDIA driver"}),
		group("aws_eks_node_group.ok", {}),
	]}
	{f.id | some f in fs} == {"infra|aws_eks_node_group.gpu"}
	some f in fs
	contains(f.msg, "AL2023_x86_64_STANDARD")
	contains(f.msg, "stay Pending while the nodes are billed ($730.00 a month)")
	contains(f.remediation, "gpuguard:ignore GPU012")
}

test_estimated_price_is_starred if {
	fs := gpu012.warn with input as {"resources": [group("g", {"no_gpu_driver": "x", "price_estimated": true})]}
	some f in fs
	contains(f.msg, "($730.00* a month)")
}

test_unpriced_group_still_warns if {
	fs := gpu012.warn with input as {"resources": [group("g", {"no_gpu_driver": "x", "monthly_cost": null})]}
	some f in fs
	endswith(f.msg, "which stay Pending while the nodes are billed")
}

test_groups_with_a_driver_pass if {
	fs := gpu012.warn with input as {"resources": [group("a", {}), group("b", {"no_gpu_driver": ""})]}
	count(fs) == 0
}
