# METADATA
# title: GPU nodes without a GPU driver
# description: >-
#   A node group of GPU machines is set to start its nodes without the NVIDIA driver: an EKS AMI
#   type without it (AL2023_x86_64_STANDARD, AL2_x86_64, BOTTLEROCKET_x86_64, also when a
#   module's or Cluster API's default gives it), a launch template booting an EKS-optimized AMI without it (read
#   from its SSM parameter or AMI name; for pods Karpenter places, their NodePool's EC2NodeClass
#   selecting such an AMI), an AKS pool's gpu_driver = "None" (gpuProfile.driver "None" in
#   ARM's terms: azapi_resource, Azure Service Operator) or SkipGPUDriverInstall tag, a GKE
#   pool's INSTALLATION_DISABLED. Its nodes
#   then offer no GPUs to pods, which stay Pending while the nodes are billed, unless something
#   else on the cluster installs the driver (the NVIDIA GPU Operator): where it does, waive the
#   finding with a suppression that says so. Settings known only at apply, and the clouds'
#   defaults, are not held against a group.
# custom:
#   id: GPU012
#   severity: warn
package gpuguard.builtin.gpu012

import data.gpuguard.lib

warn contains f if {
	some r in input.resources
	r.no_gpu_driver != "" # omitted unless the configuration says so
	f := {
		"msg": sprintf("%s: its nodes start without the GPU driver (%s), so they offer no GPUs to pods, %s", [r.address, r.no_gpu_driver, billed(r)]),
		"id": r.id,
		"remediation": sprintf("%s If the NVIDIA GPU Operator installs it, waive this with gpuguard:ignore GPU012 reason=\"the GPU Operator installs the driver\".", [object.get(remedies, object.get(r, "provider", ""), remedies.other)]),
	}
}

billed(r) := sprintf("which stay Pending while the nodes are billed (%s%s a month)", [gpuguard.dollars(r.monthly_cost), lib.star[r.price_estimated]]) if {
	r.monthly_cost != null
} else := "which stay Pending while the nodes are billed"

remedies := {
	"aws": "Use an AMI type with the NVIDIA driver: AL2023_x86_64_NVIDIA or BOTTLEROCKET_x86_64_NVIDIA (AL2023_ARM_64_NVIDIA or BOTTLEROCKET_ARM_64_NVIDIA for Graviton GPUs); for a launch template's own image, the NVIDIA variant of the EKS-optimized AMI (the SSM parameter /aws/service/eks/optimized-ami/<version>/amazon-linux-2023/x86_64/nvidia/recommended/image_id).",
	"azure": "Let AKS install the driver: gpu_driver = \"Install\" (the default), and no SkipGPUDriverInstall tag.",
	"gcp": "Let GKE install the driver: gpu_driver_version = \"DEFAULT\" or \"LATEST\".",
	"other": "Let the nodes get the driver from their image or the cloud.",
}
