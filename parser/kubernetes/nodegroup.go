package kubernetes

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// NodeGroup is a GPU node group declared outside the manifests (a Terraform configuration's EKS
// node group, GKE node pool or AKS agent pool), with the labels its nodes carry.
type NodeGroup struct {
	// Address and Root identify the group's resource; Root is "" for a group of the pods' own
	// root (a Terraform configuration's own Kubernetes objects).
	Address, Root                  string
	InstanceType, Provider, Region string
	Purchase                       parser.PurchaseOption
	// Accelerators are the GPUs attached to an N1 machine (GKE), priced with it.
	Accelerators []parser.Accelerator
	// NoGPUDriver is the group's setting that starts its nodes without the GPU driver
	// (parser.Resource.NoGPUDriver).
	NoGPUDriver string
	// GPUPartition is the MIG slice the group's GPUs are split into, as declared
	// (parser.Resource.GPUPartition: "1g.10gb", or AKS's "MIG1g").
	GPUPartition string
	// OwnPrice is the price of the group's own provisioning model (a flex-start pool's), when
	// not the catalog's (parser.Resource.OwnPrice).
	OwnPrice *parser.OwnPrice
	// MaxNodes is the most nodes the group runs: its autoscaler's maximum, else its size; 0 when
	// that is not known (a maximum known only at apply, a size in vCPUs or not read).
	MaxNodes int
	parser.NodeLabels
}

// groupNameLabels are the labels each cloud puts on a managed node group's nodes, whose value is
// the group's name:
//   - EKS: eks.amazonaws.com/nodegroup,
//     https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html
//   - GKE: cloud.google.com/gke-nodepool,
//     https://cloud.google.com/kubernetes-engine/docs/how-to/node-pools (nodeSelector example)
//   - AKS: kubernetes.azure.com/agentpool, and the older agentpool,
//     https://learn.microsoft.com/azure/aks/use-system-pools (system pool label and selector)
var groupNameLabels = map[string][]string{
	parser.AWS:   {"eks.amazonaws.com/nodegroup"},
	parser.GCP:   {"cloud.google.com/gke-nodepool"},
	parser.Azure: {"kubernetes.azure.com/agentpool", "agentpool"},
}

// GroupNameLabels returns the labels a cloud names a managed node group's nodes by.
func GroupNameLabels(provider string) []string { return groupNameLabels[provider] }

// NodeGroupsOf returns the node groups among resources: those that carry node labels.
func NodeGroupsOf(rs []parser.Resource) []NodeGroup {
	var out []NodeGroup
	for i := range rs {
		r := &rs[i]
		if r.NodeLabels == nil || r.Pod != nil {
			continue
		}
		g := NodeGroup{Address: r.Address, Root: r.Root, InstanceType: r.InstanceType, Provider: r.Provider, Region: r.Region, Purchase: r.PurchaseOption, NoGPUDriver: r.NoGPUDriver, GPUPartition: r.GPUPartition, OwnPrice: r.OwnPrice, NodeLabels: *r.NodeLabels}
		g.Accelerators = slices.Clone(r.Accelerators)
		switch {
		case r.ScaleMaxUnknown || r.QuantityVCPUs > 0 || r.AutoProvision != nil:
		case r.ScaleMax != nil:
			if r.ScaleMax.VCPUs == 0 {
				g.MaxNodes = r.ScaleMax.Quantity
			}
		default:
			g.MaxNodes = r.Quantity
		}
		out = append(out, g)
	}
	return out
}

// acceleratorTypes are the types of the GPUs attached to the group's machines (nvidia-tesla-t4).
func (g *NodeGroup) acceleratorTypes() []string {
	var out []string
	for _, a := range g.Accelerators {
		out = append(out, a.Type)
	}
	return out
}

// name is how notes name the group: its address, and its root when it has one.
func (g *NodeGroup) name() string {
	if g.Root == "" {
		return g.Address
	}
	return g.Address + " in " + g.Root
}

// runsOn records on a pod's resource that its pods run on the groups' nodes, with a note when
// some of their taints are known only at apply (they may keep the pods off), and one when their
// nodes start without the GPU driver (they offer the pods no GPUs).
func runsOn(res *parser.Resource, groups []*NodeGroup) {
	res.Pod.NodeGroups = make([]parser.GroupRef, len(groups))
	var unsure, driverless []*NodeGroup
	for i, g := range groups {
		res.Pod.NodeGroups[i] = parser.GroupRef{Address: g.Address, Root: g.Root}
		if g.TaintsUnknown {
			unsure = append(unsure, g)
		}
		if g.NoGPUDriver != "" {
			driverless = append(driverless, g)
		}
	}
	if len(unsure) > 0 {
		res.Note("some taints of %s are known only at apply: they may keep the pods off", addresses(unsure))
	}
	if len(driverless) > 0 {
		res.Note("the nodes of %s start without the GPU driver (%s): they offer the pods no GPUs unless something else on the cluster installs it (GPU012)", addresses(driverless), driverless[0].NoGPUDriver)
	}
}

// sameNode reports whether two groups run the same node, priced the same way.
func (g *NodeGroup) sameNode(o *NodeGroup) bool {
	return g.InstanceType == o.InstanceType && g.Provider == o.Provider && g.Region == o.Region &&
		g.Purchase == o.Purchase && slices.Equal(g.Accelerators, o.Accelerators) && (g.OwnPrice == nil) == (o.OwnPrice == nil)
}

// oneKind returns the first of groups when they all run the same, known node, else nil.
func oneKind(groups []*NodeGroup) *NodeGroup {
	if len(groups) == 0 || groups[0].InstanceType == "" {
		return nil
	}
	for _, g := range groups[1:] {
		if !g.sameNode(groups[0]) {
			return nil
		}
	}
	return groups[0]
}

// groupChoice is what a pod's selection says of the node groups.
type groupChoice struct {
	// used is set when the selection names a label node groups are known by: one a cloud puts
	// on its groups' nodes (cloudLabelCloud: group name, capacity, GKE's accelerator), or one a
	// group declares.
	used bool
	// matched are the groups whose labels satisfy the selection; maybe are those that may,
	// their labels being known only in part.
	matched, maybe []*NodeGroup
	// refused are the groups that match, or may, but whose taints keep the pod off.
	refused []refusal
	// selects is the selection on those labels, for notes ("cloud.google.com/gke-nodepool=l4").
	selects string
}

// Capacity is the capacity a managed node group's nodes run on, as its cloud labels them.
type Capacity string

const (
	CapacityOnDemand    Capacity = "on-demand"
	CapacitySpot        Capacity = "spot"
	CapacityPreemptible Capacity = "preemptible"    // GKE's preemptible VMs
	CapacityBlock       Capacity = "capacity-block" // EKS's Capacity Blocks for ML
	CapacityFlexStart   Capacity = "flex-start"     // GKE's flex-start provisioning
)

// capacityLabel is a label a cloud puts on a managed node group's nodes for the capacity they
// run on, with its value for each capacity that carries it.
type capacityLabel struct {
	key    string
	values map[Capacity]string
}

// capacityLabels are the labels each cloud puts on a managed node group's nodes for their
// capacity, which pods select to run on spot (or on-demand) nodes:
//   - EKS: eks.amazonaws.com/capacityType, ON_DEMAND, SPOT or CAPACITY_BLOCK on every managed
//     node group's nodes, https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html
//     (managed node group capacity types) and capacity-blocks-mng.html;
//   - GKE: cloud.google.com/gke-spot=true on a Spot pool's nodes,
//     https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms;
//     cloud.google.com/gke-preemptible=true on a preemptible pool's,
//     https://cloud.google.com/kubernetes-engine/docs/how-to/preemptible-vms;
//     cloud.google.com/gke-flex-start=true on a flex-start pool's,
//     https://cloud.google.com/kubernetes-engine/docs/how-to/dws-flex-start-training;
//   - AKS: kubernetes.azure.com/scalesetpriority=spot on a spot pool's nodes (beside the taint),
//     https://learn.microsoft.com/azure/aks/spot-node-pool.
//
// (shared/reference/pricing/README.md lists the same labels.) GKE and AKS put none on a pool of
// regular VMs.
var capacityLabels = map[string][]capacityLabel{
	parser.AWS: {{labelEKSCapacity, map[Capacity]string{CapacityOnDemand: "ON_DEMAND", CapacitySpot: "SPOT", CapacityBlock: "CAPACITY_BLOCK"}}},
	parser.GCP: {
		{labelGKEFlexStart, map[Capacity]string{CapacityFlexStart: "true"}},
		{labelGKEPreemptible, map[Capacity]string{CapacityPreemptible: "true"}},
		{labelGKESpot, map[Capacity]string{CapacitySpot: "true"}},
	},
	parser.Azure: {{labelAKSPriority, map[Capacity]string{CapacitySpot: "spot"}}},
}

// SetCapacity labels a managed node group's nodes as its cloud does for the capacity they run
// on. known is false when the capacity is known only at apply: a pod selecting any value of
// those labels may land on the group. A label the capacity does not carry is one the nodes are
// known to lack, whatever labels the group declares (the clouds reserve their prefixes).
func SetCapacity(nl *parser.NodeLabels, provider string, c Capacity, known bool) {
	for _, l := range capacityLabels[provider] {
		v, ok := l.values[c]
		switch {
		case !known:
			nl.Unknown = append(nl.Unknown, l.key)
		case ok:
			nl.Labels[l.key] = v
		default:
			nl.Without = append(nl.Without, l.key)
		}
	}
}

// SetGKEAccelerator labels a GKE pool's nodes with the GPU type GKE names them by,
// cloud.google.com/gke-accelerator (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus,
// "nodeSelector: cloud.google.com/gke-accelerator"): the type of its accelerator block, or the
// one built into its machine type (parser.GCPBuiltInAccelerator). known is false when its
// machine type is known only at apply. (A pool without GPUs lacks the label, but is no GPU node
// group either.)
func SetGKEAccelerator(nl *parser.NodeLabels, accelerator string, known bool) {
	switch {
	case !known:
		nl.Unknown = append(nl.Unknown, labelGKEAccelerator)
	case accelerator != "":
		nl.Labels[labelGKEAccelerator] = accelerator
	}
}

// cloudLabelCloud is the cloud of each label a cloud puts on its managed node groups' nodes
// (group name, capacity, GKE's accelerator and sandbox): pods select groups by them whether or not a group
// carries them.
var cloudLabelCloud = func() map[string]string {
	m := map[string]string{labelGKEAccelerator: parser.GCP, LabelGKESandbox: parser.GCP}
	for cloud, ls := range groupNameLabels {
		for _, k := range ls {
			m[k] = cloud
		}
	}
	for cloud, ls := range capacityLabels {
		for _, l := range ls {
			m[l.key] = cloud
		}
	}
	return m
}()

// groupIndex is the node groups of a Build, with what every pod's choice among them needs,
// made once: the labels groups are known by, and the groups' one kind of node.
type groupIndex struct {
	groups []NodeGroup
	all    []*NodeGroup    // the groups, for notes
	keys   map[string]bool // the clouds' group labels, and every label a group has
	any    *NodeGroup      // the groups' one kind of node, nil when they run several
	// tainted is set when a group has taints that may keep pods off it.
	tainted bool
	// byLabel are the groups that carry each label=value, and open those that may carry any
	// (labels known only in part): a selection with In looks at those alone.
	byLabel map[string][]int
	open    []int
	// catalog, when set, tells the GPUs of each group's nodes (gpus, by group; known is false
	// where they are not known): GPU feature discovery's labels select the groups whose GPUs
	// they describe (Options.GPUs).
	catalog GPUCatalog
	gpus    []groupGPUs
}

// groupGPUs are the GPUs of a group's nodes, and whether they are known.
type groupGPUs struct {
	parser.NodeGPUs
	known bool
}

// gfdLabels are the labels GPU feature discovery puts on every GPU node that the catalog can
// tell of a group's nodes.
var gfdLabels = map[string]bool{labelGPUProduct: true, labelGFDCount: true, labelGFDMemory: true,
	labelGFDFamily: true, labelGFDComputeMajor: true, labelGFDComputeMinor: true}

// byGPUs reports whether a key of a node selection is matched against each group's GPUs, as
// the catalog tells them (gfdFits): GPU feature discovery's labels, and a claim's compute
// capability.
func byGPUs(k string) bool { return gfdLabels[k] || k == keyClaimCompute }

func newGroupIndex(groups []NodeGroup, catalog GPUCatalog) *groupIndex {
	x := &groupIndex{groups: groups, keys: map[string]bool{}, byLabel: map[string][]int{}, catalog: catalog}
	if len(groups) == 0 {
		return x
	}
	for k := range cloudLabelCloud {
		x.keys[k] = true
	}
	if catalog != nil {
		for k := range gfdLabels {
			x.keys[k] = true
		}
		x.keys[keyClaimCompute] = true
		x.gpus = make([]groupGPUs, len(groups))
		for i, g := range groups {
			x.gpus[i].NodeGPUs, x.gpus[i].known = catalog.NodeGPUs(g.Provider, g.InstanceType, g.Accelerators)
		}
	}
	all := make([]*NodeGroup, len(groups))
	for i := range groups {
		g := &groups[i]
		all[i] = g
		for k, v := range g.Labels {
			x.keys[k] = true
			x.byLabel[k+"="+v] = append(x.byLabel[k+"="+v], i)
		}
		if g.Partial || len(g.Unknown) > 0 || len(g.Prefixes) > 0 {
			x.open = append(x.open, i)
		}
		for _, k := range g.Unknown {
			x.keys[k] = true
		}
		for k := range g.Prefixes {
			x.keys[k] = true
		}
		x.tainted = x.tainted || len(g.Taints) > 0
	}
	x.all, x.any = all, oneKind(all)
	return x
}

// selectGroups matches a pod's node selection against the labels of the groups on its cloud
// (any cloud when the pod's labels name none). Only the labels that single out groups count:
// those the groups carry, and those their clouds put on them (cloudLabelCloud). The well-known
// ones every node carries (zone, instance type) are read elsewhere.
func (x *groupIndex) selectGroups(sel selector, tols []toleration, provider string) groupChoice {
	var c groupChoice
	if len(x.groups) == 0 {
		return c
	}
	keys, nameOf, groups := x.keys, cloudLabelCloud, x.groups
	var used []string
	for k := range sel.allowed {
		if keys[k] {
			used = append(used, k)
		}
	}
	for k := range sel.excluded {
		if _, ok := sel.allowed[k]; !ok && keys[k] {
			used = append(used, k)
		}
	}
	// GPU feature discovery's count, memory and compute capability are numbers a pod may bound
	// (Gt, Lt).
	for _, k := range []string{labelGFDCount, labelGFDMemory, labelGFDComputeMajor, labelGFDComputeMinor} {
		_, in := sel.allowed[k]
		_, out := sel.excluded[k]
		if keys[k] && !in && !out && sel.bounded(k) {
			used = append(used, k)
		}
	}
	if len(used) == 0 {
		return c
	}
	sort.Strings(used)
	c.used = true
	var shown []string
	for _, k := range used {
		want, in := sel.allowed[k]
		switch {
		case sel.claimed[k] && sel.bounded(k):
			r, _ := sel.countRange(k)
			shown = append(shown, claimLabels[k]+" "+r.String()+" MiB through a DRA claim")
		case sel.claimed[k]:
			shown = append(shown, claimLabels[k]+" "+strings.Join(want, "|")+" through a DRA claim")
		case sel.bounded(k):
			r, _ := sel.countRange(k)
			shown = append(shown, k+" "+r.String())
		case in && want == nil:
			shown = append(shown, k+" (exists)")
		case in:
			shown = append(shown, k+"="+strings.Join(filterOut(want, sel.excluded[k]), "|"))
		default:
			shown = append(shown, k+" not "+strings.Join(sel.excluded[k], "|"))
		}
	}
	c.selects = strings.Join(shown, ", ")
	for _, i := range x.candidates(sel, used) {
		g := &groups[i]
		if provider != "" && g.Provider != provider {
			continue
		}
		fits, unsure := true, false
		for _, k := range used {
			have, ok := g.Labels[k]
			want, in := sel.allowed[k]
			prefix, prefixed := g.Prefixes[k]
			if byGPUs(k) && !ok && !prefixed && x.catalog != nil {
				f, u := x.gfdFits(i, k, sel)
				fits, unsure = fits && f, unsure || u
				continue
			}
			switch {
			case !ok && !in: // NotIn alone: a node without the label qualifies
			case !ok && want == nil && (prefixed || slices.Contains(g.Unknown, k)): // Exists
			case prefixed && !slices.ContainsFunc(want, func(v string) bool { return strings.HasPrefix(v, prefix) }):
				fits = false
			case prefixed, !ok && slices.Contains(g.Unknown, k), !ok && g.Partial && !slices.Contains(g.Without, k) && (nameOf[k] == "" || nameOf[k] == g.Provider):
				unsure = true
			case !ok:
				fits = false
			case slices.Contains(sel.excluded[k], have), in && want != nil && !slices.Contains(want, have):
				fits = false
			}
		}
		if !fits {
			continue
		}
		if t, off := g.keepsOff(tols); off {
			c.refused = append(c.refused, refusal{g, t})
		} else if unsure {
			c.maybe = append(c.maybe, g)
		} else {
			c.matched = append(c.matched, g)
		}
	}
	return c
}

// gfdFits matches a selection of one of GPU feature discovery's labels against what it puts on
// the nodes of group i (https://github.com/NVIDIA/k8s-device-plugin, "GPU Feature Discovery"
// labels): the GPUs' product name (NVIDIA-A100-SXM4-80GB), how many a node has, and each one's
// memory in MiB as the driver reports it (within parser.ReportedMiBTolerance, as the estimator
// reads the label on pods). unsure is set when the group's GPUs are not known: its instance type is known only at
// apply, or not to the catalog.
func (x *groupIndex) gfdFits(i int, k string, sel selector) (fits, unsure bool) {
	n := x.gpus[i]
	if !n.known {
		return true, true
	}
	number := func(v string) (int, bool) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		return n, err == nil
	}
	out := sel.excluded[k]
	switch k {
	case keyClaimCompute:
		return n.ComputeMajor > 0 && sel.compute.Allows(parser.Capability{Major: n.ComputeMajor, Minor: n.ComputeMinor}), false
	case labelGPUProduct:
		want := sel.allowed[k]
		return !x.catalog.Names(n.Key, out) && (want == nil || x.catalog.Names(n.Key, want)), false
	case labelGFDFamily:
		if n.ComputeMajor == 0 {
			return false, false // not an NVIDIA GPU: GFD does not label it
		}
		if n.Family == "" {
			return true, true // GFD's name for the GPU's architecture is not known
		}
		want, in := sel.allowed[k]
		return !slices.Contains(out, n.Family) && (!in || want == nil || slices.Contains(want, n.Family)), false
	case labelGFDCount, labelGFDComputeMajor, labelGFDComputeMinor:
		have := n.Count
		if k != labelGFDCount {
			if n.ComputeMajor == 0 {
				return false, false // not an NVIDIA GPU: GFD does not label it
			}
			have = n.ComputeMajor
			if k == labelGFDComputeMinor {
				have = n.ComputeMinor
			}
		}
		c, _ := sel.countRange(k)
		excluded := slices.ContainsFunc(out, func(v string) bool { c, ok := number(v); return ok && c == have })
		return !excluded && c.Allows(float64(have)), false
	default: // labelGFDMemory
		c, _ := sel.countRange(k)
		mib := float64(n.ReportedMiB)
		excluded := slices.ContainsFunc(out, func(v string) bool {
			m, ok := number(v)
			return ok && math.Abs(float64(m)-mib) <= parser.ReportedMiBTolerance*float64(m)
		})
		return !excluded && c.AllowsWithin(mib, parser.ReportedMiBTolerance), false
	}
}

// running narrows the choice to the groups that run instance type t, when any does: a pod that
// pins its node's type lands only on the groups of that type (a selection by capacity type
// alone matches groups of every type).
func (c groupChoice) running(t string) groupChoice {
	runs := func(g *NodeGroup) bool { return g.InstanceType == t }
	refusedRuns := func(r refusal) bool { return runs(r.g) }
	if !slices.ContainsFunc(c.matched, runs) && !slices.ContainsFunc(c.maybe, runs) && !slices.ContainsFunc(c.refused, refusedRuns) {
		return c
	}
	keep := func(gs []*NodeGroup) []*NodeGroup {
		return slices.DeleteFunc(slices.Clone(gs), func(g *NodeGroup) bool { return !runs(g) })
	}
	c.matched, c.maybe = keep(c.matched), keep(c.maybe)
	c.refused = slices.DeleteFunc(slices.Clone(c.refused), func(r refusal) bool { return !refusedRuns(r) })
	return c
}

// inZones narrows the choice to the groups whose nodes may be in one of zones (those whose
// zones are not known may), when one of the groups declared nearest the pod (podRoot;
// nearestBy: its cluster's, in a scan of several) is: a pod that selects its zone lands only on
// the groups there. When none of its cluster's is, the choice is kept (another cluster's group
// is no place for it), and offZones says the pods stay pending.
func (c groupChoice) inZones(zones []string, podRoot string) groupChoice {
	all := append(slices.Clip(c.matched), c.maybe...)
	for _, r := range c.refused {
		all = append(all, r.g)
	}
	near, _ := nearestBy(all, func(g *NodeGroup) string { return g.Root }, podRoot)
	away := func(g *NodeGroup) bool {
		return g.Zones != nil && len(intersect(g.Zones, zones)) == 0
	}
	if !slices.ContainsFunc(near, func(g *NodeGroup) bool { return !away(g) }) {
		return c
	}
	c.matched = slices.DeleteFunc(slices.Clone(c.matched), away)
	c.maybe = slices.DeleteFunc(slices.Clone(c.maybe), away)
	c.refused = slices.DeleteFunc(slices.Clone(c.refused), func(r refusal) bool { return away(r.g) })
	return c
}

// refusal is a node group with the taint that keeps a pod off it.
type refusal struct {
	g     *NodeGroup
	taint parser.Taint
}

// keepsOff returns the first taint of the group's nodes that keeps off a pod with these
// tolerations: a NoSchedule or NoExecute taint they do not tolerate (a PreferNoSchedule one only
// steers the scheduler elsewhere). Taints known only at apply are not held against the pod.
func (g *NodeGroup) keepsOff(tols []toleration) (parser.Taint, bool) {
	for _, t := range g.Taints {
		if t.Effect != "PreferNoSchedule" && !tolerates(tols, toleration{Key: t.Key, Value: t.Value, Effect: t.Effect}) {
			return t, true
		}
	}
	return parser.Taint{}, false
}

// refusals names each group with the taint that keeps the pods off it:
// "a (taint k=v:NoSchedule), b (...)".
func refusals(rs []refusal) string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprintf("%s (taint %s)", r.g.name(), r.taint)
	}
	return strings.Join(out, ", ")
}

// candidates are the groups, in order, that may carry a selection: for a label it selects In
// some values, those that carry one of them and those whose labels are partly unknown; else
// all of them.
func (x *groupIndex) candidates(sel selector, used []string) []int {
	for _, k := range used {
		want := sel.allowed[k]
		if want == nil || byGPUs(k) && x.catalog != nil {
			continue // matched against each group's GPUs (gfdFits)
		}
		seen := map[int]bool{}
		out := slices.Clone(x.open)
		for _, i := range out {
			seen[i] = true
		}
		for _, v := range want {
			for _, i := range x.byLabel[k+"="+v] {
				if !seen[i] {
					seen[i] = true
					out = append(out, i)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	out := make([]int, len(x.groups))
	for i := range out {
		out[i] = i
	}
	return out
}

// groupPick is the node a pod's selection of node groups gives.
type groupPick struct {
	// g is the one kind of node the selection lands on, and on the groups that run it; why says
	// why there is none when g is nil.
	g   *NodeGroup
	on  []*NodeGroup
	why string
	// stuck is set when every group the pod selects keeps it off with a taint: the scheduler
	// leaves the pods Pending. They are priced where they are meant to run, and a warning says
	// why they will not run there.
	stuck string
	// off names the groups the selection matches but whose taints keep the pods off, when
	// others take them.
	off string
	// near says that the groups of different kinds were narrowed to those declared nearest the
	// pod (nearestBy), and which were left out.
	near string
}

// group returns the one kind of node the pod's selection lands on and the groups that run it
// (those that match, and those that may), or why there is none: no group matches, they run
// different nodes, or one's node type is not known. A group that may match (its labels partly
// known only at apply) must run the same node for the choice to stand. Groups whose taints the
// pod does not tolerate count only when they are all it selects.
func (c groupChoice) group(podRoot string) groupPick {
	var p groupPick
	matched := c.matched
	switch {
	case len(c.matched) == 0 && len(c.maybe) == 0 && len(c.refused) > 0:
		for _, r := range c.refused {
			matched = append(matched, r.g)
		}
		p.stuck = fmt.Sprintf("its pods select %s, but do not tolerate the taints of the node groups that carry it: %s; the scheduler leaves them Pending until they tolerate them", c.selects, refusals(c.refused))
	case len(c.refused) > 0:
		p.off = refusals(c.refused)
	}
	switch {
	case len(matched) == 0 && len(c.maybe) > 0:
		p.why = fmt.Sprintf("the pod selects %s; %s may carry it (some of its labels are known only at apply or boot)", c.selects, addresses(c.maybe))
		return p
	case len(matched) == 0:
		p.why = fmt.Sprintf("the pod selects %s, which none of the node groups read with it carries", c.selects)
		return p
	}
	all := append(slices.Clip(matched), c.maybe...)
	if g := oneKind(all); g != nil {
		p.g, p.on = g, all
		return p
	}
	if near, named := nearestBy(all, func(g *NodeGroup) string { return g.Root }, podRoot); len(near) < len(all) {
		if g := oneKind(near); g != nil {
			far := slices.DeleteFunc(slices.Clone(all), func(g *NodeGroup) bool { return slices.Contains(near, g) })
			p.g, p.on = g, near
			where, elsewhere := "declared nearest its file", "declared further away"
			if len(named) > 0 {
				where += ", in directories named as its own (" + strings.Join(named, ", ") + "),"
				elsewhere = "declared as near or further away, in directories named otherwise"
			}
			p.near = fmt.Sprintf("the pod selects %s, which node groups of different kinds carry: those %s are taken for its cluster's, not %s, %s (taken for another cluster's)", c.selects, where, kinds(far), elsewhere)
			return p
		}
	}
	if matched[0].InstanceType == "" && len(all) == 1 {
		p.why = fmt.Sprintf("the pod selects %s: %s, whose node type is not known", c.selects, matched[0].name())
	} else {
		p.why = fmt.Sprintf("the pod selects %s, which node groups of different kinds carry (%s)", c.selects, kinds(all))
	}
	return p
}

// nearestBy returns the items declared nearest a pod's root (a manifest file, a Terraform
// root's directory), root giving each item's: those whose root shares the most leading path
// elements with it, an item of the pod's own root ("") as much as the pod's root itself. A
// repository that keeps several clusters side by side (envs/dev, envs/prod) keeps each one's
// node groups and NodePools next to its workloads, and a scan of the whole repository reads
// them all.
//
// Among items equally near, those whose further path elements share the most names with the
// pod's are kept, and named is the names they share: a repository that keeps its manifests and
// its Terraform in separate trees (k8s/overlays/prod, terraform/prod) names each cluster's
// directories alike in both. Names are compared without their extension (k8s/prod.yaml is
// prod).
func nearestBy[T any](items []T, root func(T) string, podRoot string) (near []T, named []string) {
	a := pathElements(podRoot)
	type score struct {
		lead  int
		names []string
	}
	measure := func(r string) score {
		if r == "" {
			return score{lead: len(a)}
		}
		b := pathElements(r)
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		var names []string
		for _, e := range b[n:] {
			e = trimExt(e)
			if e != "" && !slices.Contains(names, e) && slices.ContainsFunc(a[n:], func(p string) bool { return trimExt(p) == e }) {
				names = append(names, e)
			}
		}
		return score{lead: n, names: names}
	}
	best := score{lead: -1}
	alike := true // every group kept shares the same names
	for _, it := range items {
		s := measure(root(it))
		switch {
		case s.lead > best.lead || s.lead == best.lead && len(s.names) > len(best.names):
			near, best, alike = []T{it}, s, true
		case s.lead == best.lead && len(s.names) == len(best.names):
			near = append(near, it)
			alike = alike && slices.Equal(s.names, best.names)
		}
	}
	if !alike {
		return near, nil
	}
	return near, best.names
}

// trimExt returns a path element without its extension: prod.yaml is prod (.terraform is "",
// a name nearestBy does not compare).
func trimExt(e string) string {
	return strings.TrimSuffix(e, filepath.Ext(e))
}

// pathElements splits a path into its elements: "a/b/c.yaml" is a, b, c.yaml.
func pathElements(p string) []string {
	return strings.Split(filepath.ToSlash(filepath.Clean(p)), "/")
}

func addresses(gs []*NodeGroup) string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.name()
	}
	return strings.Join(out, ", ")
}

// kinds names each group with its node: "a: g5.xlarge spot in us-east-1".
func kinds(gs []*NodeGroup) string {
	out := make([]string, len(gs))
	for i, g := range gs {
		node := g.InstanceType
		if node == "" {
			node = "unknown type"
		}
		if len(g.Accelerators) > 0 {
			node += " with " + strings.Join(g.acceleratorTypes(), ", ")
		}
		if g.Purchase != "" {
			node += " " + string(g.Purchase)
		}
		if g.Region != "" {
			node += " in " + g.Region
		}
		out[i] = g.name() + ": " + node
	}
	return strings.Join(out, "; ")
}

// anyGroup returns the node a pod that names none runs on, and the groups that run it: the
// groups' one kind of node, when those whose taints the pod tolerates all run the same one on
// the pod's cloud (any cloud when the pod names none). off are the groups whose taints keep the
// pod off.
func (x *groupIndex) anyGroup(provider string, tols []toleration) (g *NodeGroup, on []*NodeGroup, off []refusal) {
	g, on = x.any, x.all
	if x.tainted {
		on = nil
		for _, o := range x.all {
			if t, bad := o.keepsOff(tols); bad {
				off = append(off, refusal{o, t})
			} else {
				on = append(on, o)
			}
		}
		g = oneKind(on)
	}
	if g == nil || provider != "" && provider != g.Provider {
		return nil, nil, off
	}
	return g, on, off
}
