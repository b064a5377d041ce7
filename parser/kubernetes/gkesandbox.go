package kubernetes

import (
	"slices"

	"github.com/gpuguard/gpuguard/parser"
)

// GKE Sandbox runs the pods of a node pool that enables it (node_config.sandbox_config, type
// gvisor; GPU pools in Preview from GKE 1.29.2) inside gVisor. GKE labels and taints the pool's
// nodes sandbox.gke.io/runtime=gvisor (NoSchedule), and creates the cluster's RuntimeClass
// gvisor (handler runsc), whose scheduling gives the pods that name it that label as a node
// selector and a toleration of that taint: sandboxed pods run only on sandboxed pools, and
// other pods stay off them.
// https://cloud.google.com/kubernetes-engine/docs/how-to/sandbox-pods

// LabelGKESandbox is the label (and the taint's key) GKE Sandbox puts on a sandboxed pool's
// nodes, with the sandbox's runtime as its value.
const LabelGKESandbox = "sandbox.gke.io/runtime"

// gkeSandboxRuntime is the one sandbox GKE offers, the value of LabelGKESandbox and the name
// of the RuntimeClass GKE creates for it.
const gkeSandboxRuntime = "gvisor"

// gkeSandboxClass is the RuntimeClass gvisor GKE creates, as far as gpuguard knows it: its
// scheduling. Its overhead, if it sets one, is not known.
var gkeSandboxClass = &runtimeClass{
	address:      "RuntimeClass " + gkeSandboxRuntime + " (GKE's)",
	nodeSelector: map[string]string{LabelGKESandbox: gkeSandboxRuntime},
	tolerations:  []toleration{{Key: LabelGKESandbox, Operator: "Equal", Value: gkeSandboxRuntime, Effect: "NoSchedule"}},
}

// SetGKESandbox labels and taints a GKE pool's nodes as GKE Sandbox does when the pool is
// sandboxed. known is false when whether it is is known only at apply: a pod selecting the
// label may land on the pool, and its taints are partly unknown.
func SetGKESandbox(nl *parser.NodeLabels, sandboxed, known bool) {
	switch {
	case !known:
		nl.Unknown = append(nl.Unknown, LabelGKESandbox)
		nl.TaintsUnknown = true
	case sandboxed:
		nl.Labels[LabelGKESandbox] = gkeSandboxRuntime
		nl.Taints = append(nl.Taints, parser.Taint{Key: LabelGKESandbox, Value: gkeSandboxRuntime, Effect: "NoSchedule"})
	default:
		nl.Without = append(nl.Without, LabelGKESandbox)
	}
}

// gkeSandboxPools are the addresses of the pools among the groups that GKE Sandbox runs (the
// label's prefix is GKE's own).
func (x *groupIndex) gkeSandboxPools() []string {
	var out []string
	for i := range x.groups {
		g := &x.groups[i]
		if g.Labels[LabelGKESandbox] == gkeSandboxRuntime && !slices.Contains(out, g.Address) {
			out = append(out, g.Address)
		}
	}
	return out
}
