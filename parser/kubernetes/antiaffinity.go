package kubernetes

import (
	"cmp"
	"fmt"
	"slices"

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
	if at, _, ok := ownPodTerm(o, tpl, podAntiAffinityField, onKey(hostnameKey)); ok {
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
// or at most k to a node (a Karpenter spread of maxSkew k, a spread of maxSkew k whose
// minDomains its pods never outnumber: minDomainsPerNode). Nothing when the workload
// runs one pod at most (its replicas and its autoscaler's maximum): a lone pod shares its node
// with other workloads' pods as any pod does.
func keepApart(o *object, tpl *podTemplate, at placement, rs *parser.Resource) {
	np := at.pool
	pods := mostPods(rs)
	if pods <= 1 {
		return
	}
	if why := cmp.Or(onePerNode(o, tpl), hostPortApart(o, tpl)); why != "" {
		rs.Pod.MaxPerNode, rs.Pod.MaxPerNodeWhy = 1, why
		return
	}
	// Karpenter caps at every such spread's maxSkew, minDomains or not: what it says is enough.
	k, why := karpenterPerNode(o, tpl, np, pods)
	if k == 0 {
		k, why = minDomainsPerNode(o, tpl, pods, at.groups)
	}
	if k > 0 {
		rs.Pod.MaxPerNode, rs.Pod.MaxPerNodeWhy = k, why
	}
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

// onKey takes a topology key among keys (for ownPodTerm).
func onKey(keys ...string) func(string) bool {
	return func(key string) bool { return slices.Contains(keys, key) }
}

// The two fields of a pod's affinity whose terms gpuguard reads.
const (
	podAffinityField     = "podAffinity"
	podAntiAffinityField = "podAntiAffinity"
)

// ownPodTerm finds the first required term of tpl's podAffinity or podAntiAffinity (field) on
// a topology key it takes (on) whose selector matches the pods' own labels: ok, its key, and where it is
// (", line N", or "" when its line is unknown). A term that looks only in
// other namespaces, or by a namespace selector other than {} (all), is not taken to mean the
// pods themselves; nor is a selector with an operator Kubernetes does not take.
func ownPodTerm(o *object, tpl *podTemplate, field string, on func(key string) bool) (at, key string, ok bool) {
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
		if item.Decode(&t) != nil || !on(t.TopologyKey) {
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
