# METADATA
# title: GPU resource without a workload profile
# description: >-
#   No workload profile is attached, so gpuguard cannot tell whether the GPU fits the work. Attach
#   one with the config's profiles map, the gpuguard.dev/profile annotation or the
#   gpuguard-profile tag. A node group whose pods all have one is judged on them and left out,
#   as is a vLLM or SGLang server whose arguments name a preset model (its fit is judged on the
#   profile inferred from them); for one whose arguments do not, the message says why. GPU
#   capacity an autoscaler provisions for waiting pods (GKE node auto-provisioning's limit on a
#   GPU type) runs no workload of its own and is left out too.
#   Raise to warn with policy_data.severities.GPU007.
# custom:
#   id: GPU007
#   severity: notice
package gpuguard.builtin.gpu007

notice contains f if {
	some r in input.resources
	r.profile == null
	not r.fit.inferred_from
	not r.pods_on_group.profiled
	not r.auto_provision
	f := {
		"msg": sprintf("%s has no workload profile: its memory fit is unknown%s", [r.address, why_not_inferred(r)]),
		"id": r.id,
		"remediation": "Describe the workload in a WorkloadProfile (or capture one with gpuguard profile capture) and attach it.",
	}
}

# why_not_inferred repeats, for a serving container whose arguments gave no profile, why not.
why_not_inferred(r) := sprintf("; %s", [trim_prefix(r.fit.reason, "no workload profile attached; ")]) if {
	contains(r.fit.reason, "none could be inferred")
} else := ""
