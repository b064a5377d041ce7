package kubernetes

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
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
// them at most) that a node holds under a spread constraint on kubernetes.io/hostname with
// minDomains, wherever its nodes come from, and why; 0 and "" when none caps them below pods.
// With fewer eligible nodes than minDomains the scheduler takes the fewest pods on a node as 0
// (https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/#spread-constraint-definition),
// so a node takes more than maxSkew of them only once at least minDomains nodes are eligible
// and every one holds one. When the workload never runs more than maxSkew × minDomains pods,
// those nodes are at least as many as maxSkew to a node needs: its pods take no fewer nodes than
// with maxSkew to a node, so that is the cap, for any node group and autoscaler. With more pods
// it is not: past minDomains nodes they pack as their requests let them, and nothing is capped.
// minDomains goes with DoNotSchedule only; a constraint the API server refuses (maxSkew or
// minDomains not a positive integer) is passed over, as is one whose selector does not match the
// pods' own labels.
func minDomainsPerNode(o *object, tpl *podTemplate, pods int) (int, string) {
	best, why := 0, ""
	for _, n := range listItems(&tpl.Spec.TopologySpreadConstraints) {
		var c topologySpread
		if n.Decode(&c) != nil || c.TopologyKey != hostnameKey || c.WhenUnsatisfiable != "DoNotSchedule" {
			continue
		}
		skew, err1 := strconv.Atoi(c.MaxSkew.Value)
		least, err2 := strconv.Atoi(c.MinDomains.Value)
		if c.MaxSkew.Kind != yaml.ScalarNode || c.MinDomains.Kind != yaml.ScalarNode || err1 != nil || err2 != nil || skew < 1 {
			continue
		}
		// pods > skew*least passes over a minDomains below 1 too.
		if skew >= pods || pods > skew*least || !selectsOwn(&c.LabelSelector, tpl) {
			continue
		}
		if best == 0 || skew < best {
			best = skew
			why = fmt.Sprintf("its topologySpreadConstraints on kubernetes.io/hostname (maxSkew %d, minDomains %d%s) count its own pods: a node takes more than maxSkew of them only once minDomains nodes hold one each, and it runs no more than maxSkew × minDomains (%d)",
				skew, least, o.atLine(n), skew*least)
		}
	}
	return best, why
}
