package kubernetes

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

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
//   - A LeaderWorkerSet with leaderWorkerTemplate.subGroupPolicy.subGroupSize and
//     leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology does it for each subgroup of a
//     group instead: the webhook gives every pod of a subgroup the same affinity to its own
//     subgroup and anti-affinity to any other (same file; subgroups are numbered by
//     getSubGroupIndex, and api/leaderworkerset/v1 leaderworkerset_types.go says how they are
//     cut, read 2026-11-28). By default (LeaderWorker) the leader is in the first subgroup:
//     when size is a multiple of subGroupSize, subgroups of subGroupSize pods; else (size-1 is)
//     the leader is an extra pod of the first subgroup. With LeaderExcluded the leader is in
//     none, and its placement is free. A group-level exclusive placement on the hostname wins
//     here: the whole group is on one node.
//
// On kubernetes.io/hostname the domain is a node: all pods of a Job (or group) must fit on the
// node the first lands on, or the rest stay pending (Together), and no other Job's pods share
// it, so a Job whose pods fill a quarter of an 8-GPU node pays for all of it (MaxPerNode, the
// Job's pods). On other keys (a node pool, a rack) the domain holds many nodes; gpuguard does
// not price it, but counts the domains the pods may use against the Jobs or groups (domains.go).
//
// A workload whose own required pod affinity on the hostname selects its own pods keeps all
// of them on one node the same way (the scheduler lets the first go anywhere, since no pod it
// selects runs yet: https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity).

// Annotations that place a group of pods exclusively in one topology domain.
const (
	jobSetExclusiveKey    = "alpha.jobset.sigs.k8s.io/exclusive-topology"
	jobSetNodeSelectorKey = "alpha.jobset.sigs.k8s.io/node-selector"
	lwsExclusiveKey       = "leaderworkerset.sigs.k8s.io/exclusive-topology"
	lwsSubExclusiveKey    = "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"
	hostnameKey           = "kubernetes.io/hostname"
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
	// inFirst is the role's pods in the domain that holds pods of every role of the group (a
	// LeaderWorkerSet's leader and its workers; the first subgroup, where the leader is).
	inFirst int
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

// lwsPods names which of a LeaderWorkerSet group's pods a role runs.
type lwsPods int

const (
	lwsAll     lwsPods = iota // leader and workers of one template
	lwsLeader                 // the leader, of its own template
	lwsWorkers                // the workers, of their own template
)

// lwsSubGroupPolicy is a LeaderWorkerSet's leaderWorkerTemplate.subGroupPolicy.
type lwsSubGroupPolicy struct {
	Type string `yaml:"subGroupPolicyType"`
	Size *int   `yaml:"subGroupSize"`
}

// lwsSubGroups is how a LeaderWorkerSet's groups are cut into subgroups placed exclusively in
// a domain of key each.
type lwsSubGroups struct {
	key      string
	size     int  // subGroupSize
	perGroup int  // subgroups in one group
	extra    bool // the leader is an extra pod of the first subgroup
	excluded bool // the leader is in no subgroup (LeaderExcluded)
}

// lwsAnnotations are a LeaderWorkerSet's (o) exclusive-placement annotations, from its own
// metadata or else from its pod templates': the controller copies its own onto the pods, and the
// pod webhook reads them on the pod, where a template's land too (the lws repository's
// DisaggregatedSet webhook says as much of a template-level one, read 2026-11-28). Each of a
// group's pods carries the group's key, so one template's annotation places the whole group.
func lwsAnnotations(o *object, leader, worker *podTemplate) lwsAnn {
	out := lwsAnn{}
	for _, key := range []string{lwsExclusiveKey, lwsSubExclusiveKey} {
		if v, ok := o.Metadata.Annotations[key]; ok {
			out[key] = annotationAt{v, "the LeaderWorkerSet's"}
			continue
		}
		for _, t := range []struct {
			tpl   *podTemplate
			where string
		}{{leader, "its leader template's"}, {worker, "its worker template's"}} {
			if t.tpl == nil {
				continue
			}
			if v, ok := t.tpl.Metadata.Annotations[key]; ok {
				out[key] = annotationAt{v, t.where}
				break
			}
		}
	}
	return out
}

// lwsAnn are a LeaderWorkerSet's exclusive-placement annotations, by key.
type lwsAnn map[string]annotationAt

// annotationAt is an annotation's value, and whose it is ("the LeaderWorkerSet's").
type annotationAt struct{ value, where string }

// source names the annotation key, whose it is, and its value, for a note.
func (a lwsAnn) source(key, more string) string {
	return fmt.Sprintf("%s %s annotation (%s%s)", a[key].where, key, a[key].value, more)
}

// lwsSubGroupsOf reads the subgroups of a LeaderWorkerSet (annotations ann) whose groups run size pods: nil
// when it sets no subGroupSize or no subgroup-exclusive-topology annotation, and an error for a
// subGroupPolicy the LeaderWorkerSet's webhook rejects (pkg/webhooks/leaderworkerset_webhook.go).
func lwsSubGroupsOf(ann lwsAnn, policy *lwsSubGroupPolicy, size int) (*lwsSubGroups, error) {
	if policy == nil || policy.Size == nil {
		return nil, nil
	}
	s, kind := *policy.Size, cmp.Or(policy.Type, "LeaderWorker")
	switch {
	case kind != "LeaderWorker" && kind != "LeaderExcluded":
		return nil, fmt.Errorf("leaderWorkerTemplate.subGroupPolicy.subGroupPolicyType: %q is neither LeaderWorker nor LeaderExcluded", kind)
	case s < 1 || s > size:
		return nil, fmt.Errorf("leaderWorkerTemplate.subGroupPolicy.subGroupSize: %d is not a number of pods from 1 to the group's size (%d)", s, size)
	case kind == "LeaderExcluded" && (size-1)%s != 0:
		return nil, fmt.Errorf("leaderWorkerTemplate.subGroupPolicy.subGroupSize: %d does not divide the group's %d workers, as LeaderExcluded needs", s, size-1)
	case size%s != 0 && (size-1)%s != 0:
		return nil, fmt.Errorf("leaderWorkerTemplate.subGroupPolicy.subGroupSize: %d divides neither the group's size (%d) nor its %d workers", s, size, size-1)
	}
	at, ok := ann[lwsSubExclusiveKey]
	if !ok {
		return nil, nil
	}
	sub := &lwsSubGroups{key: at.value, size: s, excluded: kind == "LeaderExcluded"}
	sub.extra = !sub.excluded && size%s != 0
	sub.perGroup = size / s
	if sub.excluded || sub.extra {
		sub.perGroup = (size - 1) / s
	}
	return sub, nil
}

// leaderApart says whether a LeaderWorkerSet whose leader shares its workers' template must
// still be priced as a leader and workers: its subgroups hold the workers on nodes of their
// own, and the leader on none of them (LeaderExcluded) or as an extra pod beside one of
// several.
func (sub *lwsSubGroups) leaderApart(ann lwsAnn) bool {
	return sub != nil && sub.key == hostnameKey && ann[lwsExclusiveKey].value != hostnameKey &&
		(sub.excluded || sub.extra && sub.perGroup > 1)
}

// leaderNote says why a leader of its workers' template is priced apart from them.
func (sub *lwsSubGroups) leaderNote() string {
	if sub.excluded {
		return fmt.Sprintf("a leader of the workers' template, priced apart from them: subGroupPolicyType LeaderExcluded puts it in none of their subgroups (subGroupSize %d)", sub.size)
	}
	return fmt.Sprintf("a leader of the workers' template, priced apart from them: it is an extra pod of the first of %d subgroups (subGroupSize %d)", sub.perGroup, sub.size)
}

// lwsExclusive is the exclusive placement of the pods (who) of a LeaderWorkerSet's (o) groups
// of size pods, groups of them, cut into subgroups (sub, nil when none are placed); nil when
// none. A group's placement on the hostname wins over its subgroups'; a subgroup's over a
// group's on another key (gpuguard prices neither on a key but the hostname).
func lwsExclusive(ann lwsAnn, sub *lwsSubGroups, who lwsPods, size, groups int) *exclusiveGroup {
	at, ok := ann[lwsExclusiveKey]
	key := at.value
	if ok && (key == hostnameKey || sub == nil) {
		pods := size
		switch who {
		case lwsLeader:
			pods = 1
		case lwsWorkers:
			pods = size - 1
		}
		g := &exclusiveGroup{topologyKey: key, pods: pods, groupPods: size, groups: groups, what: "group",
			source: ann.source(lwsExclusiveKey, "")}
		g.inFirst = pods
		if who == lwsWorkers {
			g.together = fmt.Sprintf("each group's %d workers on the node its leader lands on", pods)
		}
		return g
	}
	if sub == nil || who == lwsLeader && sub.excluded {
		return nil
	}
	// The pods of this role in the fullest subgroup, and the pods of every role in a subgroup.
	// Beside the extra leader, the first subgroup holds one pod more than the others; its
	// workers pay 1/subGroupSize of a node each all the same, so a group of several subgroups
	// pays 1/(subGroupSize+1) of a node more than it uses (the leader's share).
	pods, groupPods := sub.size, sub.size
	switch {
	case sub.extra && (who == lwsLeader || sub.perGroup == 1):
		groupPods = sub.size + 1
		if who == lwsAll {
			pods = groupPods
		}
	case who == lwsWorkers && !sub.extra && !sub.excluded && sub.perGroup == 1:
		pods = sub.size - 1 // the leader takes the last place
	}
	inFirst := 0 // the leader's subgroup holds the leader and the rest of its pods' workers
	switch {
	case who == lwsLeader:
		pods, inFirst = 1, 1
	case who == lwsWorkers:
		inFirst = sub.size - 1
		if sub.extra {
			inFirst = sub.size
		}
	}
	return &exclusiveGroup{topologyKey: sub.key, pods: pods, inFirst: inFirst, groupPods: groupPods, groups: groups * sub.perGroup, what: "subgroup",
		source: ann.source(lwsSubExclusiveKey, fmt.Sprintf(", subGroupSize %d", sub.size))}
}

// keepTogether records on rs.Pod the pods of its workload (role r of o) that must run on one
// node (Together), and, for an exclusive group, that no other group's pods share that node
// (MaxPerNode, the group's pods, when the object runs more than one group and nothing caps
// the pods per node lower). A LeaderWorkerSet's leader and workers of their own templates are
// checked apart: the workers of a group must fit a node, and each pod of either pays 1/size
// of it.
func keepTogether(o *object, r *role, rs *parser.Resource) {
	if g := r.exclusive; g != nil && g.topologyKey == hostnameKey {
		if g.pods > max(1, rs.Pod.Together) { // Kueue's topology-aware scheduling may keep more together
			rs.Pod.Together, rs.Pod.TogetherWhy = g.pods, fmt.Sprintf("%s puts %s", g.source, cmp.Or(g.together, fmt.Sprintf("each %s's %d pods on the node the first lands on", g.what, g.pods)))
			rs.Pod.TogetherAdmitted = false
		}
		if g.pods > 0 && (g.groups > 1 || mostPods(rs) > g.pods) && (rs.Pod.MaxPerNode == 0 || rs.Pod.MaxPerNode > g.groupPods) {
			rs.Pod.MaxPerNode, rs.Pod.MaxPerNodeWhy = g.groupPods, fmt.Sprintf("%s gives each %s of %d pods a node no other %s's pods share", g.source, g.what, g.groupPods, g.what)
			rs.Pod.MaxPerNodeGroup = true
		}
		return
	}
	if rs.Quantity > max(1, rs.Pod.Together) {
		if at, _, ok := ownPodTerm(o, &r.template, podAffinityField, onKey(hostnameKey)); ok {
			rs.Pod.Together, rs.Pod.TogetherWhy = rs.Quantity, fmt.Sprintf("its required podAffinity (topologyKey kubernetes.io/hostname%s) selects its own pods, so its %d pods run on the node the first lands on", at, rs.Quantity)
			rs.Pod.TogetherAdmitted = false
		}
	}
}

// besideSet is pods of several roles of an object that share one node, and what puts them
// there (source, followed by "puts"). admitted says they are admitted together (Kueue's
// topology-aware scheduling): where no node holds them, none of them runs.
type besideSet struct {
	source   string
	members  []besideMember
	admitted bool
}

// besideMember is a role's pods in a besideSet: roles[role], pods of them.
type besideMember struct {
	role, pods int
}

// keepBeside records, on each built role of an object (o; built[i] indexes roles[i] in res, -1
// when it was not built) that is put on one node with pods of the object's other roles, those
// pods (Beside): an exclusive placement on the hostname puts a LeaderWorkerSet's leader beside
// its workers, a RoleBasedGroup's roles beside each other; sets adds others (a Kueue PodSet
// group's). A role not built (it requests no GPUs) counts with its CPU and memory: a CPU-only
// leader takes them from its workers' node.
func keepBeside(o *object, roles []role, built []int, res []parser.Resource, sets []besideSet) {
	bySource := map[string]int{} // index in placed
	var placed []besideSet       // by exclusive placement
	for i, r := range roles {
		g := r.exclusive
		if g == nil || g.topologyKey != hostnameKey || g.inFirst <= 0 {
			continue
		}
		at, ok := bySource[g.source]
		if !ok {
			at = len(placed)
			bySource[g.source] = at
			placed = append(placed, besideSet{source: g.source})
		}
		placed[at].members = append(placed[at].members, besideMember{i, g.inFirst})
	}
	for _, set := range append(placed, sets...) {
		members := set.members
		if len(members) < 2 || slices.ContainsFunc(members, func(m besideMember) bool { return built[m.role] >= 0 && res[built[m.role]].Pod == nil }) {
			continue
		}
		mates := make([]parser.NodeMate, len(members))
		for k, m := range members {
			i := m.role
			mates[k].Pods = m.pods
			if built[i] >= 0 {
				m := res[built[i]].Pod
				mates[k].Resource, mates[k].GPUs, mates[k].CPU, mates[k].MemoryGiB = m.Resource, m.Requested, m.CPU, m.MemoryGiB
				continue
			}
			// Its template's requests were read, and their errors reported, only where a
			// role is built: one that cannot be read counts as none.
			cpu, mem, _ := podCompute(roles[i].template.Spec, o)
			mates[k].CPU, mates[k].MemoryGiB = math.Round(cpu*1000)/1000, math.Round(mem/(1<<30)*100)/100
		}
		var parts []string
		for _, m := range members {
			parts = append(parts, fmt.Sprintf("%d %s pod%s", m.pods, roles[m.role].name, parser.Plural(int64(m.pods))))
		}
		why := fmt.Sprintf("%s puts %s on one node", set.source, strings.Join(parts, " and "))
		for k, m := range members {
			if built[m.role] < 0 {
				continue
			}
			pod := res[built[m.role]].Pod
			pod.BesideOwn, pod.BesideWhy, pod.BesideAdmitted = m.pods, why, set.admitted
			pod.Beside = append(slices.Clone(mates[:k]), mates[k+1:]...)
		}
	}
}
