# METADATA
# title: MIG slice opportunity
# description: >-
#   An inference workload takes a whole A100, H100 or H200, or a MIG slice of one larger than it
#   needs, but fits a smaller MIG slice: more such workloads could share the GPU.
# custom:
#   id: GPU008
#   severity: notice
package gpuguard.builtin.gpu008

import data.gpuguard.lib

notice contains f if {
	some r in input.resources
	slice := r.fit.mig_slice
	slice != ""
	f := {
		"msg": sprintf("%s fits a %s MIG slice%s%s", [r.address, slice, smaller_than(r), saving(r)]),
		"id": r.id,
		"remediation": remediation(r, slice),
	}
}

# A workload already on MIG slices (a pod's request, or a node pool's partition) has
# gpu.mig_profile.
on_slice(r) := r.gpu.mig_profile if {
	r.gpu.mig_profile != ""
}

smaller_than(r) := sprintf(", smaller than its %s", [on_slice(r)]) if {
	on_slice(r)
} else := ""

# A pod whose GPUs all come through DRA claims changes its claims, not a device plugin's resource:
# NVIDIA's DRA driver offers MIG devices in its mig.nvidia.com DeviceClass, with their profile
# as an attribute (github.com/NVIDIA/k8s-dra-driver-gpu).
remediation(r, slice) := sprintf("Claim a %s MIG device instead of the %s one: device.attributes[\"gpu.nvidia.com\"].profile == \"%s\" in the claim's selector.", [slice, on_slice(r), slice]) if {
	r.pod.claimed_only
} else := sprintf("Claim a %s MIG device instead of a whole GPU: DeviceClass mig.nvidia.com, with device.attributes[\"gpu.nvidia.com\"].profile == \"%s\" in the claim's selector.", [slice, slice]) if {
	r.pod.claimed_only
} else := sprintf("Request nvidia.com/mig-%s instead of %s.", [slice, r.pod.resource]) if {
	startswith(r.pod.resource, "nvidia.com/mig-")
} else := sprintf("Run it on nodes whose GPUs are partitioned into %s slices instead of %s.", [slice, on_slice(r)]) if {
	is_object(r.pod)
} else := sprintf("Partition the GPUs into %s slices instead of %s.", [slice, on_slice(r)]) if {
	on_slice(r)
} else := sprintf("Partition the GPUs with MIG and request nvidia.com/mig-%s.", [slice])

saving(r) := sprintf(": repartitioned so, it would cost %s%s a month, saving %s%s", [gpuguard.dollars(rec.monthly_cost), lib.star[rec.price_estimated], gpuguard.dollars(rec.monthly_saving), lib.star[rec.price_estimated]]) if {
	on_slice(r)
	not is_object(r.pod)
	some rec in r.recommendations
	rec.kind == "mig"
} else := sprintf(": its share would cost %s%s a month, saving %s%s", [gpuguard.dollars(rec.monthly_cost), lib.star[rec.price_estimated], gpuguard.dollars(rec.monthly_saving), lib.star[rec.price_estimated]]) if {
	some rec in r.recommendations
	rec.kind == "mig"
} else := ""
