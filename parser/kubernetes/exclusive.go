package kubernetes

import (
	"cmp"
	"fmt"

	"github.com/gpuguard/gpuguard/parser"
)

// Some workloads keep a group of their pods in one topology domain, and other groups out of it.
//
//   - A JobSet with the alpha.jobset.sigs.k8s.io/exclusive-topology annotation places each child
//     Job exclusively in one domain of the named topology key. Its pod webhook gives a Job's first
//     pod (completion index 0) a required pod affinity to its own Job and a required
//     anti-affinity to any other Job's pods (jobset.sigs.k8s.io/job-key), and holds the other
//     pods back until that one is scheduled, then gives them a nodeSelector for the domain it
//     landed in (kubernetes-sigs/jobset pkg/webhooks/pod_mutating_webhook.go, read 2026-11-28).
//     The annotation is read on the JobSet or on a replicated job's template, which wins
//     (pkg/controllers/jobset_controller.go, labelAndAnnotateObject); with
//     alpha.jobset.sigs.k8s.io/node-selector beside it, nodes the user labels place the Jobs
//     instead, and gpuguard cannot see which.
//   - A LeaderWorkerSet with leaderworkerset.sigs.k8s.io/exclusive-topology does the same for
//     each group of a leader and its workers (kubernetes-sigs/lws pkg/webhooks/pod_webhook.go,
//     SetExclusiveAffinities, read 2026-11-28).
//
// On kubernetes.io/hostname the domain is a node: all pods of a Job (or group) must fit on the
// node the first lands on, or the rest stay pending (Together), and no other Job's pods share
// it, so a Job whose pods fill a quarter of an 8-GPU node pays for all of it (MaxPerNode, the
// Job's pods). On other keys (a node pool, a rack) the domain holds many nodes; gpuguard does
// not price it.
//
// A workload whose own required pod affinity on the hostname selects its own pods keeps all
// of them on one node the same way (the scheduler lets the first go anywhere, since no pod it
// selects runs yet: https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity).

// Annotations that place a group of pods exclusively in one topology domain.
const (
	jobSetExclusiveKey    = "alpha.jobset.sigs.k8s.io/exclusive-topology"
	jobSetNodeSelectorKey = "alpha.jobset.sigs.k8s.io/node-selector"
	lwsExclusiveKey       = "leaderworkerset.sigs.k8s.io/exclusive-topology"
)

// exclusiveGroup is a group of a role's pods that must share one domain of topologyKey with no
// other group's pods: a JobSet's Job, a LeaderWorkerSet's group.
type exclusiveGroup struct {
	topologyKey string
	pods        int    // of this role in one group
	groupPods   int    // of every role in one group
	groups      int    // of the whole object: its Jobs, its LeaderWorkerSet groups
	what        string // "Job", "group"
	source      string // the annotation, where it is read and its key
	// together, when set, says which pods share a node, after source and "puts": by default
	// "each Job's 4 pods on the node the first lands on".
	together string
}

// jobSetExclusive is the exclusive placement of a replicated job's Jobs, pods each, in a JobSet
// (o) that runs jobs Jobs in all; nil when none. The replicated job's template annotations (job)
// win over the JobSet's; the pod template's own count only when neither sets one.
func jobSetExclusive(o *object, job, pod map[string]string, pods, jobs int) *exclusiveGroup {
	for _, at := range []struct {
		ann   map[string]string
		where string
	}{{job, "its replicated job's template"}, {o.Metadata.Annotations, "the JobSet"}, {pod, "its pod template"}} {
		key, ok := at.ann[jobSetExclusiveKey]
		if !ok {
			continue
		}
		if _, ok := at.ann[jobSetNodeSelectorKey]; ok {
			return nil // nodes the user labels place the Jobs
		}
		return &exclusiveGroup{topologyKey: key, pods: pods, groupPods: pods, groups: jobs, what: "Job",
			source: fmt.Sprintf("the %s annotation on %s (%s)", jobSetExclusiveKey, at.where, key)}
	}
	return nil
}

// lwsExclusive is the exclusive placement of a LeaderWorkerSet's (o) groups of size pods, pods
// of them this role's, groups of them; nil when none.
func lwsExclusive(o *object, pods, size, groups int) *exclusiveGroup {
	key, ok := o.Metadata.Annotations[lwsExclusiveKey]
	if !ok {
		return nil
	}
	g := &exclusiveGroup{topologyKey: key, pods: pods, groupPods: size, groups: groups, what: "group",
		source: fmt.Sprintf("the LeaderWorkerSet's %s annotation (%s)", lwsExclusiveKey, key)}
	if pods < size {
		g.together = fmt.Sprintf("each group's %d workers on the node its leader lands on", pods)
	}
	return g
}

// keepTogether records on rs.Pod the pods of its workload (role r of o) that must run on one
// node (Together), and, for an exclusive group, that no other group's pods share that node
// (MaxPerNode, the group's pods, when the object runs more than one group and nothing caps
// the pods per node lower). A LeaderWorkerSet's leader and workers of their own templates are
// checked apart: the workers of a group must fit a node, and each pod of either pays 1/size
// of it.
func keepTogether(o *object, r *role, rs *parser.Resource) {
	if g := r.exclusive; g != nil && g.topologyKey == "kubernetes.io/hostname" {
		if g.pods > 1 {
			rs.Pod.Together, rs.Pod.TogetherWhy = g.pods, fmt.Sprintf("%s puts %s", g.source, cmp.Or(g.together, fmt.Sprintf("each %s's %d pods on the node the first lands on", g.what, g.pods)))
		}
		if g.pods > 0 && (g.groups > 1 || mostPods(rs) > g.pods) && (rs.Pod.MaxPerNode == 0 || rs.Pod.MaxPerNode > g.groupPods) {
			rs.Pod.MaxPerNode, rs.Pod.MaxPerNodeWhy = g.groupPods, fmt.Sprintf("%s gives each %s of %d pods a node no other %s's pods share", g.source, g.what, g.groupPods, g.what)
			rs.Pod.MaxPerNodeGroup = true
		}
		return
	}
	if rs.Quantity > 1 {
		if at, ok := ownPodTerm(o, &r.template, podAffinityField); ok {
			rs.Pod.Together, rs.Pod.TogetherWhy = rs.Quantity, fmt.Sprintf("its required podAffinity (topologyKey kubernetes.io/hostname%s) selects its own pods, so its %d pods run on the node the first lands on", at, rs.Quantity)
		}
	}
}
