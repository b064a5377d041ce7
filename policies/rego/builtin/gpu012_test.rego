package gpuguard.builtin.gpu012_test

import data.gpuguard.builtin.gpu012

group(id, extra) := object.union({"address": id, "id": sprintf("infra|%s", [id]), "monthly_cost": 730, "price_estimated": false}, extra)

test_group_without_driver_warns if {
	fs := gpu012.warn with input as {"resources": [
		group("aws_eks_node_group.gpu", {"provider": "aws", "no_gpu_driver": "ami_type = \"AL2023_x86_64_STANDARD\", an EKS AMI type without the NVIDIA driver"}),
		group("aws_eks_node_group.ok", {}),
	]}
	{f.id | some f in fs} == {"infra|aws_eks_node_group.gpu"}
	some f in fs
	contains(f.msg, "AL2023_x86_64_STANDARD")
	contains(f.msg, "stay Pending while the nodes are billed ($730.00 a month)")
	contains(f.remediation, "gpuguard:ignore GPU012")
	not contains(f.remediation, "AKS") # the remediation is the group's cloud's
}

test_remediation_is_the_clouds if {
	fs := gpu012.warn with input as {"resources": [
		group("aws_eks_node_group.g", {"provider": "aws", "no_gpu_driver": "x"}),
		group("azurerm_kubernetes_cluster_node_pool.p", {"provider": "azure", "no_gpu_driver": "x"}),
		group("google_container_node_pool.p", {"provider": "gcp", "no_gpu_driver": "x"}),
		group("other", {"no_gpu_driver": "x"}),
	]}
	by_id := {f.id: f.remediation | some f in fs}
	startswith(by_id["infra|aws_eks_node_group.g"], "Use an AMI type with the NVIDIA driver: AL2023_x86_64_NVIDIA")
	startswith(by_id["infra|azurerm_kubernetes_cluster_node_pool.p"], "Let AKS install the driver")
	startswith(by_id["infra|google_container_node_pool.p"], "Let GKE install the driver")
	startswith(by_id["infra|other"], "Let the nodes get the driver")
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
