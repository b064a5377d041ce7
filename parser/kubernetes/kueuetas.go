package kubernetes

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// Kueue's topology-aware scheduling (TAS) places a pod set's pods in one domain of a level of
// a Topology: a rack, a block, or on kubernetes.io/hostname one node. An administrator lists
// the levels (node labels) in a Topology object and names it in a ResourceFlavor's
// topologyName; a user asks for a level with annotations on the pod template:
//
//   - kueue.x-k8s.io/podset-required-topology: all the pod set's pods in one domain of it;
//   - kueue.x-k8s.io/podset-preferred-topology: in one if they fit, else the next level up;
//   - kueue.x-k8s.io/podset-unconstrained-topology: "true", anywhere the flavor's nodes are;
//   - kueue.x-k8s.io/podset-slice-required-topology with kueue.x-k8s.io/podset-slice-size:
//     each slice of that many pods in one domain (for a JobSet the size defaults to a Job's
//     parallelism; it must divide the pod set's pods);
//   - kueue.x-k8s.io/podset-slice-required-topology-constraints: slices of slices, a JSON
//     array of up to 3 layers ({"topology": level, "size": pods}), coarsest first, each size
//     dividing the one before (the feature gate TASMultiLayerTopology, beta and on by default
//     since Kueue v0.19). Kueue's webhook (jobframework
//     validateSliceRequiredTopologyConstraintsAnnotation) rejects it beside the one-layer
//     annotations, and layers that are not 1 to 3, that repeat a level, are not sizes of at
//     least 1 or do not divide; the first size must divide the pod set's pods (a partial
//     slice is never allowed with several layers). When it places the pods (TASFlavorSnapshot
//     findTopologyAssignment, buildSliceSizeAtLevel) each layer must be on a finer level of the
//     flavor's Topology than the one before, the first at or below the pod set's level.
//
// Kueue's flavor assigner (pkg/scheduler/flavorassigner/tas_flavorassigner.go,
// checkPodSetAndFlavorMatchForTAS) passes over a flavor without a topologyName for a pod set
// that asks for TAS, and one whose Topology lacks the level asked for; a pod set that asks for
// none passes over flavors with a topologyName, unless every flavor of its ClusterQueue has one
// (TAS is then implied, unconstrained). Source: the KEP
// (keps/2724-topology-aware-scheduling/README.md, its Validation and slice-size sections) and
// https://kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling/, read 2026-11-28.
//
// gpuguard reads the levels to choose the flavor, and the hostname level to keep pods
// together: a pod set required on one node must fit one node (Together). On other levels a
// domain holds many nodes, and nothing is priced differently. TAS only places pods on nodes
// that exist; it does not make a node pool exclusive, so no other workload is kept off.
const (
	tasRequiredKey      = "kueue.x-k8s.io/podset-required-topology"
	tasPreferredKey     = "kueue.x-k8s.io/podset-preferred-topology"
	tasUnconstrainedKey = "kueue.x-k8s.io/podset-unconstrained-topology"
	tasSliceKey         = "kueue.x-k8s.io/podset-slice-required-topology"
	tasSliceSizeKey     = "kueue.x-k8s.io/podset-slice-size"
	tasLayersKey        = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
	tasGroupKey         = "kueue.x-k8s.io/podset-group-name"
)

// A PodSet group (kueue.x-k8s.io/podset-group-name on two pod templates of one workload) is
// assigned one flavor and placed in one domain as a unit: a LeaderWorkerSet's leader and its
// workers, an MPIJob's launcher and its workers. Kueue's webhooks reject a group that is not
// exactly two pod sets, one of them of a single pod, both asking for the same required or
// preferred level (jobframework ValidatePodSetGroupingTopology), and a group named by a number
// (validatePodSetGroupNameAnnotation); the name counts only on a template that asks for TAS. The flavor assigner
// chooses the group's flavor for the pod sets' requests together (findFlavorForPodSets), and
// TAS places both in one domain of the level. Source: kueue pkg/controller/jobframework
// (validation.go, tas_validation.go), pkg/scheduler/flavorassigner/flavorassigner.go and the
// TAS docs, read 2026-11-28.

// podSetGroups are the PodSet groups of a workload's pod sets (all), each as the indexes of its
// two pod sets, in the order of their first; refused says why Kueue rejects them as written.
func podSetGroups(o *object, all []role) (groups [][2]int, refused string) {
	type member struct {
		role int
		tas  tasRequest
	}
	members := map[string][]member{}
	var names []string
	for i, x := range all {
		name, ok := x.template.Metadata.Annotations[tasGroupKey]
		t, _ := readTAS(x.template.Metadata.Annotations, x.jobPods)
		if !ok || !t.asked {
			continue
		}
		if _, err := strconv.ParseUint(name, 10, 64); err == nil {
			return nil, fmt.Sprintf("its %s %q is a number, which Kueue's webhook rejects", tasGroupKey, name)
		}
		if _, ok := members[name]; !ok {
			names = append(names, name)
		}
		members[name] = append(members[name], member{i, t})
	}
	for _, name := range names {
		m := members[name]
		if len(m) != 2 {
			return nil, fmt.Sprintf("its %s %q names %d pod set%s, and a group is exactly 2", tasGroupKey, name, len(m), parser.Plural(int64(len(m))))
		}
		if pa, pb := kueuePods(o, all[m[0].role]), kueuePods(o, all[m[1].role]); pa != 1 && pb != 1 {
			return nil, fmt.Sprintf("its %s %q groups pod sets of %d and %d pods, and one of a group must be a single pod", tasGroupKey, name, pa, pb)
		}
		if ta, tb := m[0].tas, m[1].tas; ta.level == "" || ta.level != tb.level || ta.required != tb.required {
			return nil, fmt.Sprintf("its %s %q groups pod sets that do not ask for the same %s or %s", tasGroupKey, name, tasRequiredKey, tasPreferredKey)
		}
		groups = append(groups, [2]int{m[0].role, m[1].role})
	}
	return groups, ""
}

// groupBeside is the pods a PodSet group (g, of a workload's pod sets all) required on
// kubernetes.io/hostname puts on one node: each of its pod sets' pods in one Kueue workload;
// nil when it is required on another level, or only preferred.
func groupBeside(o *object, all []role, g [2]int) *besideSet {
	t, _ := readTAS(all[g[0]].template.Metadata.Annotations, all[g[0]].jobPods)
	if !t.required || t.level != hostnameKey {
		return nil
	}
	return &besideSet{
		source:   fmt.Sprintf("Kueue's topology-aware scheduling (%s %q, %s: %s)", tasGroupKey, all[g[0]].template.Metadata.Annotations[tasGroupKey], tasRequiredKey, hostnameKey),
		members:  []besideMember{{g[0], kueuePods(o, all[g[0]])}, {g[1], kueuePods(o, all[g[1]])}},
		admitted: true,
	}
}

// tasRequest is what a pod set asks of Kueue's TAS; the zero value asks nothing.
type tasRequest struct {
	asked    bool   // any of the annotations is set
	level    string // the required or preferred level; "" when unconstrained
	required bool
	// layers are the slices each required in one domain, coarsest first: one from
	// podset-slice-required-topology, up to 3 from podset-slice-required-topology-constraints
	// (byLayers); none when no slice is asked for.
	layers   []tasLayer
	byLayers bool
}

// tasLayer is slices of size pods, each required in one domain of level.
type tasLayer struct {
	level string
	size  int
}

// readTAS reads a pod template's TAS annotations; jobPods is a JobSet Job's pods (the default
// slice size), 0 for other kinds. refused says why Kueue rejects the annotations as written.
func readTAS(ann map[string]string, jobPods int) (t tasRequest, refused string) {
	req, hasReq := ann[tasRequiredKey]
	pref, hasPref := ann[tasPreferredKey]
	unc, hasUnc := ann[tasUnconstrainedKey]
	slice, hasSlice := ann[tasSliceKey]
	size, hasSize := ann[tasSliceSizeKey]
	layers, hasLayers := ann[tasLayersKey]
	unconstrained, err := strconv.ParseBool(unc)
	switch {
	case hasReq && hasPref:
		return t, fmt.Sprintf("its pod template sets both %s and %s", tasRequiredKey, tasPreferredKey)
	case hasUnc && err != nil: // jobframework validateTASUnconstrained
		return t, fmt.Sprintf("%s: %q is not a boolean", tasUnconstrainedKey, unc)
	case hasReq:
		t.level, t.required = req, true
	case hasPref:
		t.level = pref
	}
	t.asked = hasReq || hasPref || hasSlice || hasLayers || unconstrained
	switch {
	case hasLayers && hasSlice:
		return t, fmt.Sprintf("its pod template sets both %s and %s", tasLayersKey, tasSliceKey)
	case hasLayers && hasSize:
		return t, fmt.Sprintf("its pod template sets both %s and %s", tasLayersKey, tasSliceSizeKey)
	case hasLayers:
		t.layers, refused = readLayers(layers)
		t.byLayers = true
		return t, refused
	case hasSize && !hasSlice:
		return t, fmt.Sprintf("its pod template sets %s without %s", tasSliceSizeKey, tasSliceKey)
	case !hasSlice:
		return t, ""
	}
	switch n, err := strconv.Atoi(size); {
	case !hasSize && jobPods > 0:
		t.layers = []tasLayer{{slice, jobPods}} // a JobSet's slice is one Job
	case !hasSize:
		return t, fmt.Sprintf("its pod template sets %s without %s", tasSliceKey, tasSliceSizeKey)
	case err != nil || n < 1:
		return t, fmt.Sprintf("%s: %q is not a number of pods", tasSliceSizeKey, size)
	default:
		t.layers = []tasLayer{{slice, n}}
	}
	return t, ""
}

// readLayers reads podset-slice-required-topology-constraints as Kueue's webhook checks it:
// 1 to 3 layers, each on its own level, each size at least 1 and dividing the one before.
func readLayers(v string) (layers []tasLayer, refused string) {
	var raw []struct {
		Topology string `json:"topology"`
		Size     int32  `json:"size"`
	}
	if err := json.Unmarshal([]byte(v), &raw); err != nil {
		return nil, fmt.Sprintf("%s is not a JSON array of {\"topology\": level, \"size\": pods}: %v", tasLayersKey, err)
	}
	if len(raw) < 1 || len(raw) > 3 {
		return nil, fmt.Sprintf("%s has %d layers; Kueue takes 1 to 3", tasLayersKey, len(raw))
	}
	for i, r := range raw {
		switch {
		case r.Topology == "":
			return nil, fmt.Sprintf("%s: layer %d names no topology level", tasLayersKey, i+1)
		case r.Size < 1:
			return nil, fmt.Sprintf("%s: layer %d's size %d is not a number of pods", tasLayersKey, i+1, r.Size)
		case slices.ContainsFunc(layers, func(l tasLayer) bool { return l.level == r.Topology }):
			return nil, fmt.Sprintf("%s names the level %s twice", tasLayersKey, r.Topology)
		case i > 0 && layers[i-1].size%int(r.Size) != 0:
			return nil, fmt.Sprintf("%s: layer %d's size %d does not divide the size %d of the layer before", tasLayersKey, i+1, r.Size, layers[i-1].size)
		}
		layers = append(layers, tasLayer{r.Topology, int(r.Size)})
	}
	return layers, ""
}

// checkSize says why Kueue rejects a pod set of pods pods with this request ("" when it does
// not): the (first) slice size must divide them.
func (t tasRequest) checkSize(pods int) string {
	if len(t.layers) == 0 || pods <= 0 || pods%t.layers[0].size == 0 {
		return ""
	}
	if t.byLayers {
		return fmt.Sprintf("%s: its first layer's size %d does not divide its %d pods", tasLayersKey, t.layers[0].size, pods)
	}
	return fmt.Sprintf("%s %d does not divide its %d pods", tasSliceSizeKey, t.layers[0].size, pods)
}

// levels are the levels the request names.
func (t tasRequest) levels() []string {
	var out []string
	if t.level != "" {
		out = append(out, t.level)
	}
	for _, l := range t.layers {
		if !slices.Contains(out, l.level) {
			out = append(out, l.level)
		}
	}
	return out
}

// misordered says why a Topology's levels (highest first) cannot hold the request's slices
// as asked, "" when they can: each layer must be on a finer level than the one before (no
// level is named twice: readLayers), the first no higher than the pod set's own level. The
// levels hold every level the request names (tasMatch checks that first).
func (t tasRequest) misordered(levels []string) string {
	prev, prevName := -1, "" // the level above the next layer's, by its index in levels
	if t.level != "" {
		prev, prevName = slices.Index(levels, t.level), "the pod set's level "+t.level
	}
	for i, l := range t.layers {
		at, name := slices.Index(levels, l.level), "the slices' level "+l.level
		if t.byLayers {
			name = fmt.Sprintf("layer %d's level %s", i+1, l.level)
		}
		if at < prev {
			return fmt.Sprintf("%s is above %s", name, prevName)
		}
		prev, prevName = at, name
	}
	return ""
}

// together is how many of a pod set's pods (pods) TAS keeps on one node, and why: all of them
// when required on the hostname, else a slice required there (a layer on the hostname is the
// last: no level is finer); 0 when none.
func (t tasRequest) together(pods int) (int, string) {
	if t.required && t.level == hostnameKey && pods > 1 {
		return pods, fmt.Sprintf("Kueue's topology-aware scheduling (%s: %s) puts its %d pods on one node", tasRequiredKey, hostnameKey, pods)
	}
	for i, l := range t.layers {
		switch {
		case l.level != hostnameKey || l.size <= 1:
		case t.byLayers:
			return l.size, fmt.Sprintf("Kueue's topology-aware scheduling (%s, layer %d: %s, size %d) puts each slice of %d pods on one node", tasLayersKey, i+1, hostnameKey, l.size, l.size)
		default:
			return l.size, fmt.Sprintf("Kueue's topology-aware scheduling (%s: %s) puts each slice of %d pods on one node", tasSliceKey, hostnameKey, l.size)
		}
	}
	return 0, ""
}

// addTopology reads a Kueue Topology: its levels' node labels, highest first.
func (k *kueueIndex) addTopology(o *object) error {
	var spec struct {
		Levels []struct {
			NodeLabel string `yaml:"nodeLabel"`
		} `yaml:"levels"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return err
	}
	levels := make([]string, len(spec.Levels))
	for i, l := range spec.Levels {
		levels[i] = l.NodeLabel
	}
	k.topologies[o.Metadata.Name] = levels
	return nil
}

// tasOnly says whether every flavor of the ClusterQueue has a topologyName (flavors not read
// count as without): its pod sets that ask for no TAS get it unconstrained.
func (cq *clusterQueue) tasOnly(k *kueueIndex) bool {
	any := false
	for _, g := range cq.groups {
		for _, fq := range g.flavors {
			if k.flavors[fq.name].topology == "" {
				return false
			}
			any = true
		}
	}
	return any
}

// tasMatch says why flavor f does not hold a pod set that asks t of TAS in ClusterQueue cq
// (skip), or, when it does, what is not known of its Topology (note).
func (k *kueueIndex) tasMatch(cq *clusterQueue, t tasRequest, f kueueFlavor) (skip, note string) {
	switch {
	case !t.asked && f.topology == "":
		return "", ""
	case !t.asked && cq.tasOnly(k):
		return "", "" // implied: unconstrained
	case !t.asked:
		return fmt.Sprintf("%s: its topologyName %s makes it a flavor for topology-aware scheduling only, which its pods do not ask for", f.name, f.topology), ""
	case f.topology == "":
		return fmt.Sprintf("%s: it has no topologyName, and its pods ask for topology-aware scheduling", f.name), ""
	}
	levels, ok := k.topologies[f.topology]
	if !ok {
		if len(t.levels()) == 0 {
			return "", ""
		}
		return "", fmt.Sprintf("Kueue Topology %s (ResourceFlavor %s's topologyName) is not among the files read: whether it has the level %s is not known", f.topology, f.name, strings.Join(t.levels(), ", "))
	}
	for _, l := range t.levels() {
		if !slices.Contains(levels, l) {
			return fmt.Sprintf("%s: its Topology %s has no level %s (%s)", f.name, f.topology, l, strings.Join(levels, ", ")), ""
		}
	}
	if why := t.misordered(levels); why != "" {
		return fmt.Sprintf("%s: in its Topology %s (%s), %s, so Kueue cannot place the slices there", f.name, f.topology, strings.Join(levels, ", "), why), ""
	}
	return "", ""
}

// misplacedTAS warns of TAS annotations on a workload's own metadata that none of its pod
// templates carries: Kueue reads them on the pod template (the PodSet's), so there they do
// nothing.
func misplacedTAS(o *object, roles []role) (parser.Error, bool) {
	var keys []string
	for _, key := range []string{tasRequiredKey, tasPreferredKey, tasUnconstrainedKey, tasSliceKey, tasSliceSizeKey, tasLayersKey} {
		if _, ok := o.Metadata.Annotations[key]; !ok {
			continue
		}
		if !slices.ContainsFunc(roles, func(r role) bool { _, ok := r.template.Metadata.Annotations[key]; return ok }) {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return parser.Error{}, false
	}
	return parser.Error{File: o.file, Line: o.line, Message: fmt.Sprintf("%s sets %s on its own metadata, where Kueue does not read it: topology-aware scheduling takes it from the pod template, so it does nothing here",
		o.address(), strings.Join(keys, ", "))}, true
}
