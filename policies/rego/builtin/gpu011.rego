# METADATA
# title: Node group too small for its pods
# description: >-
#   The workloads whose pods run on a node group (they select it by its name or labels) need more
#   nodes than the group can have: at their floor, so some pods never start, or at their
#   autoscalers' maximums (maxReplicas), so the replicas past the group's maximum stay Pending.
#   The needs are lower bounds (the pods' shares of a node added up, and what one workload's pods
#   need alone); DaemonSets are left out. Pods that may run on several groups of one kind are
#   judged against the groups' maximums together, once, on the first of them.
# custom:
#   id: GPU011
#   severity: warn
package gpuguard.builtin.gpu011

warn contains f if {
	some r in input.resources
	g := r.pods_on_group
	is_number(g.max_nodes) # null: the group's maximum is known only at apply
	lead(r, g)
	f := {
		"msg": message(r, g),
		"id": r.id,
		"remediation": "Raise the group's maximum (max_size, max_node_count, max_count) or its size, lower the workloads' replicas or maxReplicas, or give them another group.",
	}
}

# Pods that may run on several groups of one kind fill them together: each group carries the same
# summary (g.groups), judged once, on the first.
lead(r, g) if not g.groups

lead(r, g) if g.groups[0] == r.id

# One pass over the resources: the floor's shortfall first, else the maximums'.
message(r, g) := sprintf("%s cannot hold the pods that run on it: the pods of %s need at least %d nodes and %s at most %d, so some pods would stay Pending", [r.address, concat(", ", g.workloads), g.nodes_needed, holders(g), g.max_nodes]) if {
	g.nodes_needed > g.max_nodes
} else := sprintf("%s cannot hold the pods that run on it at their autoscalers' maximums: the pods of %s need at least %d nodes there and %s at most %d, so the replicas past that would stay Pending", [r.address, concat(", ", g.workloads), g.nodes_needed_at_max, holders(g), g.max_nodes]) if {
	g.nodes_needed_at_max > g.max_nodes
}

# holders says what the maximum is of: the group, or the groups the pods share (by address: an
# id is "root|address").
holders(g) := "it has" if not g.groups

holders(g) := sprintf("%s together have", [concat(", ", [a |
	some id in g.groups
	parts := split(id, "|")
	a := parts[count(parts) - 1]
])]) if g.groups
