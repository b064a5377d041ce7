package kubernetes

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// A topology spread constraint on kubernetes.io/hostname keeps the difference between the
// number of a workload's pods on any node and on the node with the fewest within maxSkew
// (https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/). The
// kube-scheduler takes that fewest among the nodes that exist, so on a full node group the
// pods only spread evenly. Karpenter, which launches nodes for pending pods, takes it as zero:
// it can always launch one more node, a domain that holds none of them. So it puts at most
// maxSkew of the workload's pods on any node it launches, whatever room is left there
// (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/topologygroup.go,
// domainMinCount and nextDomainTopologySpread, read 2026-11-28). Its default preference policy
// (Respect) keeps a ScheduleAnyway constraint as a required one, dropping it only when a pod
// cannot be scheduled at all (preferences.go, removeTopologySpreadScheduleAnyway), which never
// happens while it can launch nodes; its Ignore policy drops it. Users report the effect: a
// 25-replica Deployment with maxSkew 1 got 25 nodes (aws/karpenter-provider-aws#4666).
//
// For GPU pods that is the node's price: with maxSkew 1, a 1-GPU pod on a 4-GPU node pays for
// all four; with maxSkew 2, for two. gpuguard caps the pods per node of a workload placed on a
// Karpenter NodePool (MaxPerNode), as the estimator then prices them.

// topologySpread is what gpuguard reads of a topology spread constraint.
type topologySpread struct {
	MaxSkew           yaml.Node `yaml:"maxSkew"`
	TopologyKey       string    `yaml:"topologyKey"`
	WhenUnsatisfiable string    `yaml:"whenUnsatisfiable"`
	MinDomains        yaml.Node `yaml:"minDomains"`
	LabelSelector     yaml.Node `yaml:"labelSelector"`
}

// skewAndMinDomains is a constraint's maxSkew, when a positive integer (the API server refuses
// any other), and its minDomains, when an integer, else ok is false. A minDomains below 1 (which
// the API server refuses too) asks for no more domains than any pods have: callers comparing it
// pass it over.
func (c *topologySpread) skewAndMinDomains() (skew, least int, ok bool) {
	skew, err1 := strconv.Atoi(c.MaxSkew.Value)
	least, err2 := strconv.Atoi(c.MinDomains.Value)
	if c.MaxSkew.Kind != yaml.ScalarNode || c.MinDomains.Kind != yaml.ScalarNode || err1 != nil || err2 != nil || skew < 1 {
		return 0, 0, false
	}
	return skew, least, true
}

// karpenterPerNode is the most pods of the workload (tpl, a pod template of o, with pods of them
// at most) that Karpenter puts on a node it launches for them from np, and why; 0 and "" when
// no constraint of the template caps them below pods. The cap is the smallest maxSkew of the
// template's constraints on kubernetes.io/hostname that select the pods' own labels: a
// constraint counts the pods in the pod's namespace its selector matches, and a pod its own
// selector does not match adds nothing to the count it is held to. A constraint the API server
// refuses (no whenUnsatisfiable, a maxSkew that is not a positive integer) is passed over.
func karpenterPerNode(o *object, tpl *podTemplate, np *nodePool, pods int) (int, string) {
	if np == nil {
		return 0, ""
	}
	best, why := 0, ""
	for _, n := range listItems(&tpl.Spec.TopologySpreadConstraints) {
		var c topologySpread
		if n.Decode(&c) != nil || c.TopologyKey != "kubernetes.io/hostname" {
			continue
		}
		skew, err := strconv.Atoi(c.MaxSkew.Value)
		if c.MaxSkew.Kind != yaml.ScalarNode || err != nil || skew < 1 || skew >= pods {
			continue
		}
		how, soft := "", ""
		switch c.WhenUnsatisfiable {
		case "DoNotSchedule":
		case "ScheduleAnyway":
			how, soft = ", ScheduleAnyway", " (it keeps a ScheduleAnyway constraint while it can launch nodes, unless its preference policy is Ignore)"
		default:
			continue
		}
		if !selectsOwn(&c.LabelSelector, tpl) {
			continue
		}
		if best == 0 || skew < best {
			best = skew
			why = fmt.Sprintf("its topologySpreadConstraints on kubernetes.io/hostname (maxSkew %d%s%s) count its own pods, and Karpenter, launching %s's nodes, counts the next node it can launch as holding none of them%s",
				skew, how, o.atLine(n), np.address, soft)
		}
	}
	return best, why
}

// minDomainsPerNode is the most pods of the workload (tpl, a pod template of o, with pods of
// them at most, on nodes of groups when known) that a node holds under a spread constraint on
// kubernetes.io/hostname with minDomains, and why; 0 and "" when none caps them below pods.
// With fewer eligible nodes than minDomains the scheduler takes the fewest pods on a node as 0
// (https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/#spread-constraint-definition),
// so a node takes more than maxSkew of them only once at least minDomains nodes are eligible
// and every one holds one. When the workload never runs more than maxSkew × minDomains pods,
// those nodes are at least as many as maxSkew to a node needs: its pods take no fewer nodes than
// with maxSkew to a node, so that is the cap, for any node group and autoscaler. So it is when
// the node groups the pods run on have fewer nodes than minDomains at their maximums
// (NodeGroup.MaxNodes): there are never minDomains nodes. Otherwise more pods are not capped:
// past minDomains nodes they pack as their requests let them.
// minDomains goes with DoNotSchedule only; a constraint the API server refuses (maxSkew or
// minDomains not a positive integer) is passed over, as is one whose selector does not match the
// pods' own labels.
func minDomainsPerNode(o *object, tpl *podTemplate, pods int, groups []*NodeGroup) (int, string) {
	most := groupsMaxNodes(groups)
	best, why := 0, ""
	for _, n := range listItems(&tpl.Spec.TopologySpreadConstraints) {
		var c topologySpread
		if n.Decode(&c) != nil || c.TopologyKey != hostnameKey || c.WhenUnsatisfiable != "DoNotSchedule" {
			continue
		}
		skew, least, ok := c.skewAndMinDomains()
		if !ok {
			continue
		}
		few := most > 0 && most < least // never minDomains nodes
		if skew >= pods || pods > skew*least && !few || !selectsOwn(&c.LabelSelector, tpl) {
			continue
		}
		if best == 0 || skew < best {
			best = skew
			held := fmt.Sprintf("it runs no more than maxSkew × minDomains (%d)", skew*least)
			if few {
				held = fmt.Sprintf("%s %s at most %d node%s", nodeGroups(groups), hasHave(len(groups)), most, parser.Plural(int64(most)))
			}
			why = fmt.Sprintf("its topologySpreadConstraints on kubernetes.io/hostname (maxSkew %d, minDomains %d%s) count its own pods: a node takes more than maxSkew of them only once minDomains nodes hold one each, and %s",
				skew, least, o.atLine(n), held)
		}
	}
	return best, why
}

// groupsMaxNodes is the most nodes the groups run together (NodeGroup.MaxNodes); 0 when there
// are none or one of them does not say.
func groupsMaxNodes(groups []*NodeGroup) int {
	n := 0
	for _, g := range groups {
		if g.MaxNodes <= 0 {
			return 0
		}
		n += g.MaxNodes
	}
	return n
}

// pendingPastNodes warns when a workload whose pods share a node at most MaxPerNode at a time
// (keepApart) runs more of them than that many on every node its node groups may have (at,
// their maximums): the rest stay pending. They are priced as declared; an autoscaler's maximum
// past them is capped there, with a note. Pods kept together in groups (MaxPerNodeGroup) are
// held the same way: each group takes a node of its own. Not when a group's maximum is unknown,
// nor on a Karpenter NodePool (a pod placed there runs on no node group). Other workloads on the
// same nodes are not counted: the pending pods are a floor.
func pendingPastNodes(o *object, at placement, rs *parser.Resource) (parser.Error, bool) {
	k, most := rs.Pod.MaxPerNode, groupsMaxNodes(at.groups)
	if k <= 0 || most == 0 {
		return parser.Error{}, false
	}
	held := "no two of them share a node"
	if k > 1 {
		held = fmt.Sprintf("a node holds at most %d of them", k)
	}
	nodes := fmt.Sprintf("%s %s at most %d node%s", nodeGroups(at.groups), hasHave(len(at.groups)), most, parser.Plural(int64(most)))
	why := fmt.Sprintf("%s, so %s, and %s", rs.Pod.MaxPerNodeWhy, held, nodes)
	if strings.HasSuffix(rs.Pod.MaxPerNodeWhy, nodes) { // minDomainsPerNode said it: too few nodes
		why = fmt.Sprintf("%s, so %s", rs.Pod.MaxPerNodeWhy, held)
	}
	return podsPast(o, rs, k*most, "the nodes of its node groups", why)
}

// hasHave is "has" for one, "have" for more.
func hasHave(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}
