package estimator

import (
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// The nodes pods need of a group are lower bounds: shares of a node added up, with only the
// largest part-time workload beside the always-on ones, and no fewer than one workload's pods
// take when a node holds only so many of them.
func TestNodesNeeded(t *testing.T) {
	for _, c := range []struct {
		name string
		ws   []podLoad
		want int
	}{
		{"nothing", nil, 0},
		{"whole nodes", []podLoad{{pods: 4, share: 1}}, 4},
		{"half nodes round up", []podLoad{{pods: 3, share: 0.5}}, 2},
		{"eighths add up exactly", []podLoad{{pods: 16, share: 0.125}}, 2},
		{"three of eight GPUs go two to a node", []podLoad{{pods: 3, share: 0.375}}, 2},
		{"five of them need three nodes, not two", []podLoad{{pods: 5, share: 0.375}}, 3},
		{"always-on workloads add up", []podLoad{{pods: 3, share: 0.5}, {pods: 2, share: 0.5}}, 3},
		{"part-time workloads may take turns", []podLoad{{pods: 2, share: 1}, {pods: 3, share: 1, partTime: true}, {pods: 2, share: 1, partTime: true}}, 5},
		{"a part-time workload alone", []podLoad{{pods: 6, share: 1, partTime: true}, {pods: 1, share: 1}}, 7},
		{"no pods, no share", []podLoad{{pods: 0, share: 1}, {pods: 3, share: 0}}, 0},
	} {
		if got := nodesNeeded(c.ws); got != c.want {
			t.Errorf("%s: %d nodes, want %d", c.name, got, c.want)
		}
	}
}

// Pods priced on a GKE pool they select: the pool learns how many nodes they need at their
// floor and at their autoscaler's maximum, and says when its own maximum cannot hold them; the
// totals count the pool and its pods once, never past the pool's maximum.
func TestPodsOnANodeGroup(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	pool := func(qty, most int, unknownMax bool) parser.Resource {
		r := parser.Resource{Address: "google_container_node_pool.l4", Root: "infra", Provider: parser.GCP, Region: "europe-west4",
			InstanceType: "g2-standard-24", Quantity: qty, PurchaseOption: parser.Spot, Kind: parser.KindTerraform, Type: "google_container_node_pool",
			ScaleMaxUnknown: unknownMax}
		if most > 0 {
			r.SetScaleMax(most, "autoscaling.max_node_count")
		}
		return r
	}
	pods := func(kind string, replicas, most int, hours float64) parser.Resource {
		r := parser.Resource{Address: kind + "/ml/x", Root: "k8s/a.yaml", Provider: parser.GCP, Region: "europe-west4", InstanceType: "g2-standard-24",
			Quantity: replicas, PurchaseOption: parser.Spot, Kind: parser.KindKubernetes, Type: kind, HoursPerMonth: hours,
			Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, NodeGroups: []parser.GroupRef{{Address: "google_container_node_pool.l4", Root: "infra"}}}}
		if most > 0 {
			r.SetScaleMax(most, "maxReplicas")
		}
		return r
	}
	profiled := func(r parser.Resource) parser.Resource {
		r.Profile = "profiles/chat.yaml"
		return r
	}
	node := p.Estimate(pool(1, 0, false))
	perNode, _ := node.Monthly()
	for _, c := range []struct {
		name           string
		rs             []parser.Resource
		want           *GroupPods
		note           string
		monthly, atMax float64 // in nodes of the pool
		gpus           float64
		profiled       bool // every workload on the group has a profile
	}{
		{"within the pool", []parser.Resource{pool(3, 0, false), pods("Deployment", 3, 0, 0)},
			&GroupPods{NodesNeeded: 2, NodesNeededAtMax: 2, MaxNodes: ptr(3)}, "", 3, 0, 6, false},
		{"profiled pods", []parser.Resource{pool(3, 0, false), profiled(pods("Deployment", 3, 0, 0)), profiled(pods("StatefulSet", 1, 0, 0))},
			&GroupPods{NodesNeeded: 2, NodesNeededAtMax: 2, MaxNodes: ptr(3)}, "", 3, 0, 6, true},
		{"some pods profiled", []parser.Resource{pool(3, 0, false), profiled(pods("Deployment", 3, 0, 0)), pods("StatefulSet", 1, 0, 0)},
			&GroupPods{NodesNeeded: 2, NodesNeededAtMax: 2, MaxNodes: ptr(3)}, "", 3, 0, 6, false},
		{"past the pool's floor, within its maximum", []parser.Resource{pool(1, 4, false), pods("Deployment", 5, 0, 0)},
			&GroupPods{NodesNeeded: 3, NodesNeededAtMax: 3, MaxNodes: ptr(4)}, "", 2.5, 4, 5, false}, // the pods' shares: 2.5 nodes
		{"replicas at the maximum past the pool's", []parser.Resource{pool(3, 0, false), pods("Deployment", 3, 8, 0)},
			&GroupPods{NodesNeeded: 2, NodesNeededAtMax: 4, MaxNodes: ptr(3)}, "at their autoscalers' maximums its pods need at least 4 nodes and it has at most 3", 3, 3, 6, false},
		{"pods past the pool's maximum at their floor", []parser.Resource{pool(1, 2, false), pods("Deployment", 6, 0, 0)},
			&GroupPods{NodesNeeded: 3, NodesNeededAtMax: 3, MaxNodes: ptr(2)}, "its pods need at least 3 nodes and it has at most 2: pods would stay Pending", 2, 2, 4, false},
		{"a DaemonSet follows the nodes", []parser.Resource{pool(2, 0, false), pods("DaemonSet", 2, 0, 0)},
			&GroupPods{NodesNeeded: 0, NodesNeededAtMax: 0, MaxNodes: ptr(2)}, "", 2, 0, 4, false},
		{"jobs may take turns", []parser.Resource{pool(2, 0, false), pods("Job", 4, 0, 100), pods("CronJob", 4, 0, 100)},
			&GroupPods{NodesNeeded: 2, NodesNeededAtMax: 2, MaxNodes: ptr(2)}, "", 2, 0, 4, false},
		{"a maximum known only at apply", []parser.Resource{pool(1, 0, true), pods("Deployment", 6, 0, 0)},
			&GroupPods{NodesNeeded: 3, NodesNeededAtMax: 3}, "", 3, 0, 6, false}, // not capped
	} {
		t.Run(c.name, func(t *testing.T) {
			es := p.EstimateAll(c.rs)
			for i := range es {
				if es[i].Profile != nil { // as check's assessment leaves it
					es[i].Recommendations = []Recommendation{{Kind: RecSmallerInstance, InstanceType: "g2-standard-4", Reason: "fits"}}
				}
			}
			AssessNodeGroups(es)
			for _, e := range es[1:] {
				if e.Profile != nil && e.Recommendations[0].Reason != "fits; its pods run on google_container_node_pool.l4: this means changing that group" {
					t.Errorf("%s: recommendation %q", e.Address, e.Recommendations[0].Reason)
				}
			}
			g := es[0]
			if c.want == nil {
				if g.PodsOnGroup != nil {
					t.Fatalf("pods on group %+v, want none", g.PodsOnGroup)
				}
			} else {
				if g.PodsOnGroup == nil {
					t.Fatalf("no pods on group; notes %q", g.Notes)
				}
				got := *g.PodsOnGroup
				if got.Profiled != c.profiled {
					t.Errorf("profiled %v, want %v", got.Profiled, c.profiled)
				}
				if got.NodesNeeded != c.want.NodesNeeded || got.NodesNeededAtMax != c.want.NodesNeededAtMax || !sameInt(got.MaxNodes, c.want.MaxNodes) ||
					len(got.Workloads) != len(c.rs)-1 || got.Workloads[0] != c.rs[1].Address {
					t.Errorf("pods on group %+v (max %v), want %+v (max %v)", got, deref(got.MaxNodes), *c.want, deref(c.want.MaxNodes))
				}
			}
			notes := strings.Join(g.Notes, "\n")
			if c.note != "" && !strings.Contains(notes, c.note) || c.note == "" && strings.Contains(notes, "Pending") {
				t.Errorf("notes %q, want %q", notes, c.note)
			}
			tot := Sum(es)
			if want := money.Amount(perNode.Mul(c.monthly)); tot.MonthlyCost != want {
				t.Errorf("monthly %v, want %v (%v nodes)", tot.MonthlyCost, want, c.monthly)
			}
			if c.atMax == 0 && tot.MaxMonthlyCost != nil || c.atMax > 0 && (tot.MaxMonthlyCost == nil || *tot.MaxMonthlyCost != money.Amount(perNode.Mul(c.atMax))) {
				t.Errorf("max %s, want %v nodes' %v", amount(tot.MaxMonthlyCost), c.atMax, money.Amount(perNode.Mul(c.atMax)))
			}
			if tot.GPUs != c.gpus {
				t.Errorf("gpus %v, want %v", tot.GPUs, c.gpus)
			}
		})
	}
}

func ptr(n int) *int { return &n }

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func sameInt(a, b *int) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// The savings of a node group and of the pods on it come out of the same nodes: they add up
// once, as the larger of the group's and its pods' together; everything else adds up.
func TestSavingsCountsANodeGroupAndItsPodsOnce(t *testing.T) {
	saving := func(e Estimate, dollars float64, estimated bool) *Estimate {
		e.Recommendations = []Recommendation{
			{Kind: RecCommitment, MonthlySaving: money.Amount(money.FromDollars(dollars / 2))},
			{Kind: RecSpot, MonthlySaving: money.Amount(money.FromDollars(dollars)), PriceEstimated: estimated},
		}
		return &e
	}
	group := Estimate{Address: "pool", ID: "infra|pool"}
	pod := func(name string) Estimate { return Estimate{Address: name, ID: "k8s|" + name, NodeGroup: "infra|pool"} }
	both := &GroupPods{Groups: []string{"infra|a", "infra|b"}}
	shared := func(name string) Estimate { return Estimate{Address: name, ID: "infra|" + name, PodsOnGroup: both} }
	onBoth := func(name string) Estimate {
		return Estimate{Address: name, ID: "k8s|" + name, NodeGroup: "infra|b", NodeGroups: []string{"infra|b", "infra|a"}}
	}
	for _, c := range []struct {
		name      string
		es        []*Estimate
		want      float64
		estimated bool
	}{
		{"the group saves more", []*Estimate{saving(group, 900, false), saving(pod("a"), 300, false), saving(pod("b"), 200, false), saving(Estimate{ID: "x"}, 50, false)}, 950, false},
		{"its pods save more together", []*Estimate{saving(group, 400, false), saving(pod("a"), 300, true), saving(pod("b"), 200, false)}, 500, true},
		{"pods without their group among them", []*Estimate{saving(pod("a"), 300, false), saving(pod("b"), 200, false)}, 500, false},
		{"a group without recommendations", []*Estimate{&group, saving(pod("a"), 300, false)}, 300, false},
		{"no recommendations", []*Estimate{&group, {ID: "x"}}, 0, false},
		{"two groups the pods share save more together", []*Estimate{saving(shared("a"), 300, false), saving(shared("b"), 300, false), saving(onBoth("p"), 500, false)}, 600, false},
		{"pods on two groups save more", []*Estimate{saving(shared("a"), 100, false), saving(shared("b"), 100, false), saving(onBoth("p"), 500, false), saving(onBoth("q"), 100, false)}, 600, false},
	} {
		got, estimated := Savings(c.es)
		if got != money.FromDollars(c.want) || estimated != c.estimated {
			t.Errorf("%s: %v (estimated %v), want %v (%v)", c.name, got, estimated, c.want, c.estimated)
		}
	}
}

// Pods that may run on either of two groups of one kind count within both: the groups share
// one summary, with the nodes of both, and the totals count the two groups and the pods once,
// no further than both groups' maximums.
func TestPodsOnTwoNodeGroupsOfOneKind(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	pool := func(name string, qty, most int) parser.Resource {
		r := parser.Resource{Address: "google_container_node_pool." + name, Root: "infra", Provider: parser.GCP, Region: "europe-west4",
			InstanceType: "g2-standard-24", Quantity: qty, PurchaseOption: parser.Spot, Kind: parser.KindTerraform, Type: "google_container_node_pool"}
		r.SetScaleMax(most, "autoscaling.max_node_count")
		return r
	}
	pods := func(replicas int) parser.Resource {
		return parser.Resource{Address: "Deployment/ml/chat", Root: "k8s/a.yaml", Provider: parser.GCP, Region: "europe-west4", InstanceType: "g2-standard-24",
			Quantity: replicas, PurchaseOption: parser.Spot, Kind: parser.KindKubernetes, Type: "Deployment",
			Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, NodeGroups: []parser.GroupRef{
				{Address: "google_container_node_pool.a", Root: "infra"}, {Address: "google_container_node_pool.b", Root: "infra"}}}}
	}
	node := p.Estimate(pool("a", 1, 1))
	perNode, _ := node.Monthly()
	for _, c := range []struct {
		name           string
		replicas       int
		need           int
		note           string
		monthly, atMax float64 // in nodes
	}{
		{"within the groups' floors", 4, 2, "", 3, 5},
		{"past their floors", 8, 4, "", 4, 5},
		{"past both maximums", 12, 6, "its pods need at least 6 nodes and it and google_container_node_pool.b have at most 5", 5, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			es := p.EstimateAll([]parser.Resource{pool("a", 2, 3), pool("b", 1, 2), pods(c.replicas)})
			a, b, d := es[0], es[1], es[2]
			if a.PodsOnGroup == nil || a.PodsOnGroup != b.PodsOnGroup {
				t.Fatalf("the groups do not share one summary: %+v, %+v", a.PodsOnGroup, b.PodsOnGroup)
			}
			gp := a.PodsOnGroup
			if gp.NodesNeeded != c.need || gp.MaxNodes == nil || *gp.MaxNodes != 5 || strings.Join(gp.Groups, " ") != "infra|google_container_node_pool.a infra|google_container_node_pool.b" {
				t.Errorf("summary %+v (max %v), want %d nodes needed of 5", *gp, deref(gp.MaxNodes), c.need)
			}
			if d.NodeGroup != "infra|google_container_node_pool.a" || strings.Join(d.NodeGroups, " ") != strings.Join(gp.Groups, " ") {
				t.Errorf("pods on %q %q", d.NodeGroup, d.NodeGroups)
			}
			if notes := strings.Join(a.Notes, "\n"); c.note != "" && !strings.Contains(notes, c.note) || c.note == "" && strings.Contains(notes, "Pending") {
				t.Errorf("notes %q, want %q", notes, c.note)
			}
			if strings.Contains(strings.Join(b.Notes, "\n"), "Pending") {
				t.Errorf("the second group repeats the lead's note: %q", b.Notes)
			}
			tot := Sum(es)
			if want := money.Amount(perNode.Mul(c.monthly)); tot.MonthlyCost != want {
				t.Errorf("monthly %v, want %v (%v nodes)", tot.MonthlyCost, want, c.monthly)
			}
			if tot.MaxMonthlyCost == nil || *tot.MaxMonthlyCost != money.Amount(perNode.Mul(c.atMax)) {
				t.Errorf("max %s, want %v nodes", amount(tot.MaxMonthlyCost), c.atMax)
			}
			if want := 2 * min(c.monthly, 5); tot.GPUs != want {
				t.Errorf("gpus %v, want %v", tot.GPUs, want)
			}
		})
	}
}

// A pod priced at its share of a node no node group among the estimates provides says what
// whole nodes would cost when its pods leave part of their last node empty; pods that fill
// their nodes, pods on a node group and DaemonSets say nothing.
func TestPartNodesNoted(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	pods := func(kind string, replicas int, group string) parser.Resource {
		r := parser.Resource{Address: kind + "/ml/x" + group, Root: "k8s", Provider: parser.AWS, Region: "us-east-1", InstanceType: "g6.12xlarge",
			Quantity: replicas, PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes, Type: kind,
			Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1}}
		if group != "" {
			r.Pod.NodeGroups = []parser.GroupRef{{Address: group, Root: "infra"}}
		}
		return r
	}
	group := parser.Resource{Address: "aws_eks_node_group.l4", Root: "infra", Provider: parser.AWS, Region: "us-east-1", InstanceType: "g6.12xlarge",
		Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform, Type: "aws_eks_node_group"}
	es := p.EstimateAll([]parser.Resource{pods("Deployment", 1, ""), pods("Deployment", 4, ""), pods("StatefulSet", 5, ""),
		pods("DaemonSet", 1, ""), group, pods("Job", 1, "aws_eks_node_group.l4")})
	node, _ := es[4].Monthly()
	noted := func(e Estimate) string {
		for _, n := range e.Notes {
			if strings.Contains(n, "priced at that share") {
				return n
			}
		}
		return ""
	}
	for i, want := range []string{
		"its pod takes 25% of g6.12xlarge and is priced at that share; a node started for it alone would cost " + node.String() + " a month: the share is the bill only where other pods use the rest",
		"",
		"its 5 pods take 25% of g6.12xlarge each and are priced at that share; the 2 nodes they need, started for them alone, would cost " + (2 * node).String() + " a month: the share is the bill only where other pods use the rest",
		"",
		"",
		"",
	} {
		if got := noted(es[i]); got != want {
			t.Errorf("%s ×%d: note %q, want %q", es[i].Address, es[i].Quantity, got, want)
		}
	}
	if es[5].NodeGroup == "" {
		t.Fatal("the Job's pod is not on the node group")
	}
}
