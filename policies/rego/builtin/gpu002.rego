# METADATA
# title: Workload does not fit in GPU memory
# description: >-
#   The attached workload profile needs more memory per GPU than the resource's GPU has (or more
#   GPUs than the resource gives it): the job will fail with out-of-memory errors. Without a
#   profile, a vLLM server whose arguments name a preset model is judged on what vLLM needs to
#   start; when the context it serves does not fit, the remediation gives the longest that does.
#   An SGLang server is judged likewise, and fails when its weights leave its static share no
#   room for KV cache. A pod held back only by its DRA claim's MPS memory limit is told the
#   limit that holds it.
# custom:
#   id: GPU002
#   severity: deny
package gpuguard.builtin.gpu002

import data.gpuguard.lib

deny contains f if {
	some r in input.resources
	r.fit.verdict == "does_not_fit"
	f := {
		"msg": sprintf("%s: the workload (%s) does not fit: %s", [r.address, workload(r), r.fit.reason]),
		"id": r.id,
		"remediation": remediation(r),
	}
}

workload(r) := r.profile if r.profile != null

else := sprintf("no profile; inferred from %s", [r.fit.inferred_from]) if r.fit.inferred_from

else := "no profile"

remediation(r) := msg if {
	fix := r.fit.mps_limit_fix
	fix != null
	msg := sprintf("Raise the MPS memory limit (defaultPinnedDeviceMemoryLimit) in %s's configuration to %s: its GPU holds that, at no extra cost.", [fix.config, fix.limit])
} else := msg if {
	n := r.fit.max_context_tokens
	alt := r.fit.cheapest_fit
	alt != null
	msg := sprintf("%s, or use %s, the cheapest type that holds the whole context (%s%s a month).", [limit_context(n), lib.node(alt), gpuguard.dollars(alt.monthly_cost), lib.star[alt.price_estimated]])
} else := msg if {
	n := r.fit.max_context_tokens
	msg := sprintf("%s, or shard the model further (tensor parallelism).", [limit_context(n)])
} else := msg if {
	alt := r.fit.cheapest_fit
	alt.kind == "mig"
	msg := sprintf("Use larger MIG slices, the cheapest way to hold it (%s%s a month): %s; or shard the model further (tensor parallelism) or use a smaller batch.", [gpuguard.dollars(alt.monthly_cost), lib.star[alt.price_estimated], alt.reason])
} else := msg if {
	alt := r.fit.cheapest_fit
	alt != null
	msg := sprintf("Use %s, the cheapest type that holds it (%s%s a month), or %s.", [lib.node(alt), gpuguard.dollars(alt.monthly_cost), lib.star[alt.price_estimated], smaller(r)])
} else := "Split the model over more GPUs (tensor parallelism), quantize its weights or use a GPU with more memory: its weights alone fill SGLang's static share." if {
	sglang(r)
} else := "Split the model over more GPUs (tensor parallelism), quantize its weights, serve fewer sequences or a shorter context, or use a GPU with more memory." if {
	r.workload.type == "inference"
} else := "Shard the model further (ZeRO-3/FSDP, tensor parallelism), enable activation checkpointing, use a smaller batch or a GPU with more memory."

# smaller is how the same GPUs could hold the workload: a serving replica is split, quantized or
# given fewer sequences; a training job sharded or given a smaller batch.
smaller(r) := "split the model over more GPUs (tensor parallelism) or quantize its weights, which alone fill SGLang's static share" if {
	sglang(r)
} else := "split the model over more GPUs (tensor parallelism), quantize its weights or serve fewer sequences or a shorter context" if {
	r.workload.type == "inference"
} else := "shard the model further (ZeRO-3/FSDP, tensor parallelism) or use a smaller batch"

# sglang is an SGLang server judged without a profile: it fails only when its weights leave its
# static share no room for KV cache, which fewer sequences or a shorter context do not help.
sglang(r) if startswith(r.fit.inferred_from, "SGLang arguments")

# limit_context tells a server whose context does not fit the longest one that does.
limit_context(n) := sprintf("Limit the server's context to %d tokens or fewer (vLLM's --max-model-len; an estimate)", [n])
