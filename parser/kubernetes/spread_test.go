package kubernetes

import (
	"fmt"
	"strings"
	"testing"
)

// A topology spread constraint on kubernetes.io/hostname that counts a workload's own pods caps
// how many of them Karpenter puts on a node at its maxSkew: 1 keeps them one to a node, more is
// MaxPerNode. Not on a zone, not for other pods, not when the workload has no more pods than
// maxSkew, and not off a Karpenter NodePool.
func TestKarpenterSpreadPerNode(t *testing.T) {
	const pool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n    spec:\n      requirements:\n" +
		"      - {key: node.kubernetes.io/instance-type, operator: In, values: [g6.12xlarge]}\n" +
		"      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n---\n" // 10 lines
	deployment := func(replicas, spread string) string {
		return pool + "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: ml}\nspec:\n  replicas: " + replicas + "\n  template:\n" +
			"    metadata: {labels: {app: a, tier: gpu}}\n    spec:\n      topologySpreadConstraints:\n" + spread +
			"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	}
	hostname := func(skew, when, selector string) string {
		return "      - {maxSkew: " + skew + ", topologyKey: kubernetes.io/hostname, whenUnsatisfiable: " + when + ", labelSelector: " + selector + "}\n"
	}
	const own = "{matchLabels: {app: a}}"
	antiAffinity := "      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n" +
		"          - {labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}\n"
	hpa := "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: a, namespace: ml}\n" +
		"spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: a}, minReplicas: 1, maxReplicas: 6}\n"
	// The same pods on a node the kube-scheduler finds among those that exist.
	offPool := strings.Replace(strings.Replace(deployment("4", hostname("1", "DoNotSchedule", own)), pool, "", 1),
		"    spec:\n      topology", "    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g6.12xlarge}\n      topology", 1)
	for _, c := range []struct {
		name, src string
		cap       int
		want      string // in why; "" when nothing caps the pods
	}{
		{"maxSkew 1 keeps them one to a node", deployment("4", hostname("1", "DoNotSchedule", own)), 1,
			"its topologySpreadConstraints on kubernetes.io/hostname (maxSkew 1, line 20) count its own pods, and Karpenter, launching NodePool/gpu's nodes, counts the next node it can launch as holding none of them"},
		{"maxSkew 2", deployment("4", hostname("2", "DoNotSchedule", own)), 2, "(maxSkew 2, line 20) count"},
		{"ScheduleAnyway, kept by Karpenter", deployment("4", hostname("2", "ScheduleAnyway", own)), 2, "(maxSkew 2, ScheduleAnyway, line 20) count its own pods, and Karpenter, launching NodePool/gpu's nodes, counts the next node it can launch as holding none of them (it keeps a ScheduleAnyway constraint while it can launch nodes, unless its preference policy is Ignore)"},
		{"the smallest of two", deployment("8", hostname("3", "DoNotSchedule", own)+hostname("2", "DoNotSchedule", "{matchExpressions: [{key: tier, operator: In, values: [gpu]}]}")), 2, "(maxSkew 2, line 21)"},
		{"an empty selector matches every pod", deployment("4", hostname("2", "DoNotSchedule", "{}")), 2, "line 20"},
		{"a block of the Terraform provider", deployment("4", hostname("2", "DoNotSchedule", "["+own+"]")), 2, "line 20"},
		{"scaled past maxSkew by an HPA", deployment("1", hostname("2", "DoNotSchedule", own)) + hpa, 2, "line 20"},
		{"a required anti-affinity says why first", strings.Replace(deployment("4", hostname("1", "DoNotSchedule", own)), "      containers:", antiAffinity+"      containers:", 1), 1, "its required podAntiAffinity"},
		{"no more pods than maxSkew", deployment("2", hostname("2", "DoNotSchedule", own)), 0, ""},
		{"by zone", deployment("4", "      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: "+own+"}\n"), 0, ""},
		{"other pods", deployment("4", hostname("1", "DoNotSchedule", "{matchLabels: {app: b}}")), 0, ""},
		{"no selector", deployment("4", "      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}\n"), 0, ""},
		{"no whenUnsatisfiable: refused", deployment("4", "      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, labelSelector: "+own+"}\n"), 0, ""},
		{"maxSkew 0: refused", deployment("4", hostname("0", "DoNotSchedule", own)), 0, ""},
		{"maxSkew -1: refused", deployment("4", hostname("-1", "DoNotSchedule", own)), 0, ""},
		{"not on a Karpenter NodePool", offPool, 0, ""},
	} {
		r := one(t, buildWarning(t, c.name, c.src, ""))
		why := r.Pod.MaxPerNodeWhy
		if got := r.Pod.MaxPerNode; got != c.cap {
			t.Errorf("%s: %d pods a node at most, want %d (%q)", c.name, got, c.cap, why)
		}
		if c.want == "" && why != "" || !strings.Contains(why, c.want) {
			t.Errorf("%s: why %q, want %q", c.name, why, c.want)
		}
		if !strings.Contains(c.src, "ScheduleAnyway") && strings.Contains(why, "ScheduleAnyway") {
			t.Errorf("%s: a required constraint told as ScheduleAnyway: %q", c.name, why)
		}
	}
}

// A spread on kubernetes.io/hostname with minDomains caps the pods a node holds at maxSkew
// wherever the nodes come from, when the workload never runs more than maxSkew × minDomains
// pods: a node takes more than maxSkew only once minDomains nodes hold one each. Not past that
// (an autoscaler's maximum counts), not for ScheduleAnyway (which minDomains does not go with),
// not for other pods, not for a minDomains the API server refuses, and not on a zone.
func TestMinDomainsSpreadPerNode(t *testing.T) {
	deployment := func(replicas, spread string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: ml}\nspec:\n  replicas: " + replicas + "\n  template:\n" +
			"    metadata: {labels: {app: a}}\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g6.12xlarge}\n" +
			"      topologySpreadConstraints:\n" + spread +
			"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	}
	spread := func(key, skew, least, when, selector string) string {
		return "      - {maxSkew: " + skew + ", minDomains: " + least + ", topologyKey: " + key + ", whenUnsatisfiable: " + when + ", labelSelector: " + selector + "}\n"
	}
	const host, zone, own = "kubernetes.io/hostname", "topology.kubernetes.io/zone", "{matchLabels: {app: a}}"
	hpa := func(most string) string {
		return "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: a, namespace: ml}\n" +
			"spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: a}, minReplicas: 1, maxReplicas: " + most + "}\n"
	}
	karpenter := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n    spec:\n      requirements:\n" +
		"      - {key: node.kubernetes.io/instance-type, operator: In, values: [g6.12xlarge]}\n" +
		"      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n---\n" // 10 lines
	for _, c := range []struct {
		name, src string
		cap       int
		want      string // in why; "" when nothing caps the pods
	}{
		{"as many pods as minDomains", deployment("4", spread(host, "1", "4", "DoNotSchedule", own)), 1,
			"its topologySpreadConstraints on kubernetes.io/hostname (maxSkew 1, minDomains 4, line 11) count its own pods: a node takes more than maxSkew of them only once minDomains nodes hold one each, and it runs no more than maxSkew × minDomains (4)"},
		{"fewer pods than maxSkew × minDomains", deployment("5", spread(host, "2", "3", "DoNotSchedule", own)), 2, "(maxSkew 2, minDomains 3, line 11)"},
		{"the smallest of two", deployment("4", spread(host, "3", "2", "DoNotSchedule", own)+spread(host, "2", "2", "DoNotSchedule", own)), 2, "line 12"},
		{"an HPA's maximum within minDomains", deployment("2", spread(host, "1", "6", "DoNotSchedule", own)) + hpa("6"), 1, "(6)"},
		// Karpenter caps at every hostname spread's maxSkew, minDomains or not: it says why.
		{"on a Karpenter NodePool", karpenter + deployment("4", spread(host, "2", "2", "DoNotSchedule", own)), 2, "Karpenter"},
		{"more pods than maxSkew × minDomains", deployment("4", spread(host, "1", "3", "DoNotSchedule", own)), 0, ""},
		{"an HPA's maximum past minDomains", deployment("2", spread(host, "1", "4", "DoNotSchedule", own)) + hpa("6"), 0, ""},
		{"no more pods than maxSkew", deployment("2", spread(host, "2", "2", "DoNotSchedule", own)), 0, ""},
		{"ScheduleAnyway", deployment("4", spread(host, "1", "4", "ScheduleAnyway", own)), 0, ""},
		{"other pods", deployment("4", spread(host, "1", "4", "DoNotSchedule", "{matchLabels: {app: b}}")), 0, ""},
		{"minDomains 0: refused", deployment("4", spread(host, "1", "0", "DoNotSchedule", own)), 0, ""},
		{"minDomains not a number", deployment("4", spread(host, "1", "four", "DoNotSchedule", own)), 0, ""},
		{"by zone", deployment("4", spread(zone, "1", "4", "DoNotSchedule", own)), 0, ""},
	} {
		r := one(t, build(t, c.src, Options{}))
		why := r.Pod.MaxPerNodeWhy
		if got := r.Pod.MaxPerNode; got != c.cap {
			t.Errorf("%s: %d pods a node at most, want %d (%q)", c.name, got, c.cap, why)
		}
		if c.want == "" && why != "" || !strings.Contains(why, c.want) {
			t.Errorf("%s: why %q, want %q", c.name, why, c.want)
		}
	}
}

// Pods kept apart on the nodes of node groups whose maximums are known: past what those nodes
// hold (maxSkew, or one, to a node), the rest stay pending, a warning, and an autoscaler's
// maximum is capped there. A hostname spread whose minDomains is more than the groups' nodes is
// such a cap whatever the pods: there are never minDomains nodes. Not when a group's maximum is
// unknown, and not on nodes gpuguard does not know.
func TestPodsPastTheNodesOfTheirGroups(t *testing.T) {
	pool := func(name string, most int) NodeGroup {
		g := zonedPool(name, "g2-standard-48", "us-central1-a")
		g.MaxNodes = most
		return g
	}
	deployment := func(replicas, selection, apart string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: ml}\nspec:\n  replicas: " + replicas + "\n  template:\n" +
			"    metadata: {labels: {app: a}}\n    spec:\n      nodeSelector: {" + selection + "}\n" + apart +
			"      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	}
	antiAffinity := "      affinity:\n        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n" +
		"          - {labelSelector: {matchLabels: {app: a}}, topologyKey: kubernetes.io/hostname}\n"
	spread := func(skew, least string) string {
		return "      topologySpreadConstraints:\n      - {maxSkew: " + skew + ", minDomains: " + least +
			", topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: a}}}\n"
	}
	hpa := "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: a, namespace: ml}\n" +
		"spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: a}, minReplicas: 1, maxReplicas: 9}\n"
	const spreadWhy = "its topologySpreadConstraints on kubernetes.io/hostname (maxSkew %s, minDomains %s, line 11) count its own pods: a node takes more than maxSkew of them only once minDomains nodes hold one each, and node group google_container_node_pool.l4 has at most 2 nodes"
	for _, c := range []struct {
		name, src string
		groups    []NodeGroup
		cap       int // pods a node
		want      domainCap
	}{
		{"one to a node, past the pool's nodes", deployment("4", "workload: serve", antiAffinity), []NodeGroup{pool("l4", 2)}, 1,
			domainCap{warning: "Deployment/ml/a runs 4 pods, but its required podAntiAffinity (topologyKey kubernetes.io/hostname, line 13) selects its own pods, so no two of them share a node, and node group google_container_node_pool.l4 has at most 2 nodes: the other 2 stay pending (priced as declared)"}},
		{"one to a node, on two pools", deployment("4", "workload: serve", antiAffinity), []NodeGroup{pool("l4", 2), pool("l4-b", 1)}, 1,
			domainCap{warning: "and node groups google_container_node_pool.l4, google_container_node_pool.l4-b have at most 3 nodes: the last one stays pending"}},
		{"one to a node, within the pool's nodes", deployment("2", "workload: serve", antiAffinity), []NodeGroup{pool("l4", 2)}, 1, domainCap{}},
		{"an autoscaler past the pool's nodes", deployment("2", "workload: serve", antiAffinity) + hpa, []NodeGroup{pool("l4", 3)}, 1,
			domainCap{scaleMax: 3, note: "at most 3 pods at full scale-out, not the 9 of the maxReplicas of HorizontalPodAutoscaler/ml/a"}},
		{"a pool whose maximum is unknown", deployment("4", "workload: serve", antiAffinity), []NodeGroup{pool("l4", 0)}, 1, domainCap{}},
		{"one of two pools' maximum unknown", deployment("4", "workload: serve", antiAffinity), []NodeGroup{pool("l4", 2), pool("l4-b", 0)}, 1, domainCap{}},
		{"minDomains past the pool's nodes", deployment("6", "workload: serve", spread("1", "3")), []NodeGroup{pool("l4", 2)}, 1,
			domainCap{warning: "Deployment/ml/a runs 6 pods, but " + fmt.Sprintf(spreadWhy, "1", "3") + ", so no two of them share a node: the other 4 stay pending (priced as declared)"}},
		{"maxSkew 2, minDomains past the pool's nodes", deployment("6", "workload: serve", spread("2", "3")), []NodeGroup{pool("l4", 2)}, 2,
			domainCap{warning: fmt.Sprintf(spreadWhy, "2", "3") + ", so a node holds at most 2 of them: the other 2 stay pending"}},
		{"minDomains within the pool's nodes, more pods", deployment("6", "workload: serve", spread("1", "2")), []NodeGroup{pool("l4", 2)}, 0, domainCap{}},
		{"minDomains past nodes gpuguard does not know", deployment("6", "node.kubernetes.io/instance-type: g2-standard-48", spread("1", "3")), nil, 0, domainCap{}},
	} {
		checkDomainCapOn(t, c.name, c.src, Options{NodeGroups: c.groups}, c.want)
		if r := one(t, build(t, c.src, Options{NodeGroups: c.groups})); r.Pod.MaxPerNode != c.cap {
			t.Errorf("%s: %d pods a node, want %d (%q)", c.name, r.Pod.MaxPerNode, c.cap, r.Pod.MaxPerNodeWhy)
		}
	}
}
