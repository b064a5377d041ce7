package kubernetes

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// A required pod anti-affinity whose topology key is kubernetes.io/hostname and whose label
// selector matches the pod's own labels keeps the workload's pods one to a node
// (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity):
// replicas spread over nodes for availability. A 1-GPU pod so placed on an 8-GPU node leaves
// 7 GPUs that no other pod of the workload can take, so the estimator prices each pod as its
// whole node (NodeShare), and chooses the node type for one pod.

// podAffinityTerm is what gpuguard reads of a pod (anti-)affinity term: the namespaces it looks
// in (affinityTerm, as a quota's scope reads them), its label selector and topology key.
type podAffinityTerm struct {
	affinityTerm  `yaml:",inline"`
	LabelSelector yaml.Node `yaml:"labelSelector"`
	TopologyKey   string    `yaml:"topologyKey"`
}

// onePerNode says why no two pods of tpl, a pod template of o, share a node: the first required
// anti-affinity term on kubernetes.io/hostname whose selector matches the pods' own labels
// (ownPodTerm). "" when none does.
func onePerNode(o *object, tpl *podTemplate) string {
	if at, _, ok := ownPodTerm(o, tpl, podAntiAffinityField, hostnameKey); ok {
		return fmt.Sprintf("its required podAntiAffinity (topologyKey kubernetes.io/hostname%s) selects its own pods", at)
	}
	return ""
}

// mostPods is the most pods a workload runs: its replicas, or its autoscaler's maximum when
// that is more.
func mostPods(rs *parser.Resource) int {
	if rs.ScaleMax != nil {
		return max(rs.Quantity, rs.ScaleMax.Quantity)
	}
	return rs.Quantity
}

// keepApart records on rs.Pod what keeps the pods of its workload (tpl, a pod template of o,
// placed on np when a Karpenter NodePool launches their nodes) apart, as MaxPerNode: one to a
// node (a required anti-affinity on the hostname, a host port, a Karpenter spread of maxSkew 1),
// or at most k to a node (a Karpenter spread of maxSkew k). Nothing when the workload
// runs one pod at most (its replicas and its autoscaler's maximum): a lone pod shares its node
// with other workloads' pods as any pod does.
func keepApart(o *object, tpl *podTemplate, np *nodePool, rs *parser.Resource) {
	pods := mostPods(rs)
	if pods <= 1 {
		return
	}
	if why := cmp.Or(onePerNode(o, tpl), hostPortApart(o, tpl)); why != "" {
		rs.Pod.MaxPerNode, rs.Pod.MaxPerNodeWhy = 1, why
		return
	}
	if k, why := karpenterPerNode(o, tpl, np, pods); k > 0 {
		rs.Pod.MaxPerNode, rs.Pod.MaxPerNodeWhy = k, why
	}
}

// zoneKeys are the node labels that name a node's zone, the current one first.
var zoneKeys = []string{labelZone, "failure-domain.beta.kubernetes.io/zone"}

// capByZones warns when a required pod anti-affinity on the zone that selects the workload's own
// pods (tpl, a pod template of o) keeps them one to a zone, and their nodes may be in fewer zones
// than the pods: those past one a zone stay pending. The zones are those the pods' node selection
// allows, the Kueue flavors assigned to them, and the Karpenter NodePool's requirements and
// labels when one launches the nodes (at); nothing is said when none names them. The pods are priced as declared; an autoscaler's
// maximum past the zones is capped there, with a note. ok is false when nothing is said.
func capByZones(o *object, tpl *podTemplate, at placement, rs *parser.Resource) (warn parser.Error, ok bool) {
	pods := mostPods(rs)
	if pods <= 1 {
		return parser.Error{}, false
	}
	line, key, ok := ownPodTerm(o, tpl, podAntiAffinityField, zoneKeys...)
	if !ok {
		return parser.Error{}, false
	}
	zones, from, plural := allowedZones(tpl, at)
	if len(zones) == 0 { // none named, or none allowed: nothing runs, which is said elsewhere
		return parser.Error{}, false
	}
	n, allow := len(zones), "allows"
	if plural {
		allow = "allow"
	}
	why := fmt.Sprintf("its required podAntiAffinity (topologyKey %s%s) selects its own pods, and %s %s its nodes %d zone%s (%s)",
		key, line, strings.Join(from, " and "), allow, n, parser.Plural(int64(n)), strings.Join(zones, ", "))
	if m := capPods(rs, n, "one pod a zone"); m != nil {
		rs.Note("at most %d pod%s at full scale-out, not the %d of the %s: %s", n, parser.Plural(int64(n)), m.Quantity, m.From, why)
	}
	if rs.Quantity <= n {
		return parser.Error{}, false
	}
	rest := fmt.Sprintf("the other %d stay pending", rs.Quantity-n)
	if rs.Quantity-n == 1 {
		rest = "the last one stays pending"
	}
	return parser.Error{File: o.file, Line: o.line, Message: fmt.Sprintf("%s runs %d pods, but %s: one pod a zone, so %s (priced as declared)",
		rs.Address, rs.Quantity, why, rest)}, true
}

// allowedZones is the zones a workload's nodes may be in, sorted, and what says so: those its
// pod template's node selection (tpl) allows, narrowed by the Kueue flavors assigned to its pods
// and a Karpenter NodePool's requirements (which hold its template's labels), both in at; nil
// when none names them. plural says whether what says so is more than one thing.
func allowedZones(tpl *podTemplate, at placement) (zones, from []string, plural bool) {
	narrow := func(v []string, what string) {
		if zones == nil {
			zones = slices.Clone(v)
		} else {
			zones = intersect(zones, v)
		}
		from = append(from, what)
	}
	if v, ok := podSelector(tpl.Spec).values(zoneKeys...); ok && v != nil {
		narrow(v, "its node selection")
	}
	if at.kueueZones != nil {
		what := "Kueue ResourceFlavor " + at.zoneFlavors[0]
		if len(at.zoneFlavors) > 1 {
			what, plural = "Kueue ResourceFlavors "+strings.Join(at.zoneFlavors, ", "), true
		}
		narrow(at.kueueZones, what)
	}
	if np := at.pool; np != nil {
		if v, ok := np.requirements.values(zoneKeys...); ok && v != nil { // its template's labels among them
			narrow(v, "Karpenter NodePool "+np.name)
		}
	}
	if zones == nil {
		return nil, nil, false
	}
	slices.Sort(zones)
	return slices.Compact(zones), from, plural || len(from) > 1
}

// selectsOwn reports whether a pod (anti-)affinity term's or a spread constraint's label
// selector matches the labels of tpl's own pods. A null selector matches no pod; one with an
// operator Kubernetes does not take matches none either. The Terraform provider writes the
// selector as a block: a list of one.
func selectsOwn(selector *yaml.Node, tpl *podTemplate) bool {
	items := listItems(selector)
	if len(items) != 1 {
		return false
	}
	var s labelSelector
	if items[0].Decode(&s) != nil {
		return false
	}
	ok, err := s.matches(tpl.Metadata.Labels)
	return err == nil && ok
}

// The two fields of a pod's affinity whose terms gpuguard reads.
const (
	podAffinityField     = "podAffinity"
	podAntiAffinityField = "podAntiAffinity"
)

// ownPodTerm finds the first required term of tpl's podAffinity or podAntiAffinity (field) on
// one of the topology keys whose selector matches the pods' own labels: ok, its key, and where it is
// (", line N", or "" when its line is unknown). A term that looks only in
// other namespaces, or by a namespace selector other than {} (all), is not taken to mean the
// pods themselves; nor is a selector with an operator Kubernetes does not take.
func ownPodTerm(o *object, tpl *podTemplate, field string, keys ...string) (at, key string, ok bool) {
	a := tpl.Spec.Affinity
	if a == nil {
		return "", "", false
	}
	n := &a.PodAntiAffinity
	if field == podAffinityField {
		n = &a.PodAffinity
	}
	if n.Kind != yaml.MappingNode {
		return "", "", false
	}
	var terms struct {
		Required yaml.Node `yaml:"requiredDuringSchedulingIgnoredDuringExecution"`
	}
	if n.Decode(&terms) != nil {
		return "", "", false
	}
	for _, item := range listItems(&terms.Required) {
		var t podAffinityTerm
		if item.Decode(&t) != nil || !slices.Contains(keys, t.TopologyKey) {
			continue
		}
		switch sel := &t.NamespaceSelector; {
		case sel.Kind == yaml.MappingNode && len(sel.Content) == 0: // {}: every namespace
		case sel.Kind != 0 && sel.Tag != "!!null":
			continue
		case len(t.Namespaces) > 0 && !slices.Contains(t.Namespaces, o.namespace()):
			continue
		}
		if !selectsOwn(&t.LabelSelector, tpl) {
			continue
		}
		return o.atLine(item), t.TopologyKey, true
	}
	return "", "", false
}
