# METADATA
# title: MIG slice opportunity
# description: >-
#   An inference workload takes a whole A100, H100 or H200 but fits one of its MIG slices: several
#   such workloads could share the GPU.
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
		"msg": sprintf("%s fits a %s MIG slice%s", [r.address, slice, saving(r)]),
		"id": r.id,
		"remediation": sprintf("Partition the GPUs with MIG and request nvidia.com/mig-%s.", [slice]),
	}
}

saving(r) := sprintf(": its share would cost %s%s a month, saving %s%s", [gpuguard.dollars(rec.monthly_cost), lib.star[rec.price_estimated], gpuguard.dollars(rec.monthly_saving), lib.star[rec.price_estimated]]) if {
	some rec in r.recommendations
	rec.kind == "mig"
} else := ""
