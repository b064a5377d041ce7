package estimator

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// A pod that no other pod of its workload may share a node with pays for its whole node: 3
// one-GPU pods on g6.12xlarge (4 L4s) cost 3 nodes, not 3 quarters of one. A node chosen for
// such pods is the cheapest that holds one pod; without a profile they are told the smaller node
// of the same GPUs, and no MIG slice (a slice would not let them share the node).
func TestOnePerNodePaysTheNode(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	pod := func(onePerNode string, families ...string) parser.Resource {
		r := parser.Resource{Address: "Deployment/s/chat", Provider: "aws", Region: "us-east-1", Quantity: 3, PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes,
			Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, CPU: 2, MemoryGiB: 8}}
		if onePerNode != "" {
			r.Pod.MaxPerNode, r.Pod.MaxPerNodeWhy = 1, onePerNode
		}
		if len(families) > 0 {
			r.Pod.Families = families
		} else {
			r.InstanceType = "g6.12xlarge"
		}
		return r
	}
	why := "its required podAntiAffinity (topologyKey kubernetes.io/hostname, line 9) selects its own pods"
	shared, alone := p.Estimate(pod("")), p.Estimate(pod(why))
	s, _ := shared.Monthly()
	a, _ := alone.Monthly()
	// g6.12xlarge in us-east-1: $4.6016 an hour on demand.
	if s.Cents() != expectCents(t, "730", "4.6016", "0.75") || a.Cents() != expectCents(t, "730", "4.6016", "3") {
		t.Fatalf("shared %s, one to a node %s", s.Decimal(2), a.Decimal(2))
	}
	if alone.Pod.NodeShare != 1 || !strings.Contains(strings.Join(alone.Notes, "|"), why+", so no two of them share a node: each pays for a whole g6.12xlarge (4 GPUs), of which it uses 1") {
		t.Errorf("node share %g, notes %q", alone.Pod.NodeShare, alone.Notes)
	}
	// Chosen by family: the g6.xlarge that holds one pod, whatever the whole nodes of several.
	chosen := p.Estimate(pod(why, "g6"))
	if chosen.InstanceType != "g6.xlarge" {
		t.Errorf("chose %q, want g6.xlarge", chosen.InstanceType)
	}
	recs := p.Unprofiled(&alone, pod(why))
	if len(recs) == 0 || recs[0].Kind != RecSmallerInstance || recs[0].InstanceType != "g6.xlarge" ||
		!strings.Contains(recs[0].Reason, "each uses 1 of g6.12xlarge's 4 GPUs: a g6.xlarge (1× NVIDIA L4) holds one") {
		t.Fatalf("recommendations %+v, want g6.xlarge first", recs)
	}
	if got, want := money.Micros(recs[0].MonthlyCost).Cents(), expectCents(t, "730", "0.8048", "3"); got != want {
		t.Errorf("g6.xlarge for 3 pods: %d cents, want %d", got, want)
	}
	for _, r := range p.Unprofiled(&shared, pod("")) {
		if r.Kind == RecSmallerInstance {
			t.Errorf("pods that share nodes are told %+v", r)
		}
	}
}

// A pod kept one to a node pays for the node whatever slice of a GPU it takes: it is told no
// MIG slice, though its workload fits one, and a smaller instance is priced as a whole node too.
func TestOnePerNodeGetsNoMIGSlice(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	e := bertPods(t, p, "kept apart")
	if mig, ok := rec(e, RecMIG); ok {
		t.Errorf("told a MIG slice: %+v", mig)
	}
	current, _ := e.Monthly()
	smaller, ok := rec(e, RecSmallerInstance)
	if !ok {
		t.Fatalf("no smaller instance: %+v", e.Recommendations)
	}
	// Each of the 2 pods on a whole node of the smaller type.
	in, _ := p.Catalog.Instance("aws", smaller.InstanceType)
	q, _ := p.Catalog.Quote("aws", in.Type, "us-east-1", parser.OnDemand)
	if want := q.Hourly.Mul(730 * 2); money.Micros(smaller.MonthlyCost) != want || money.Micros(smaller.MonthlySaving) != current-want {
		t.Errorf("%s: %s a month, want 2 whole nodes: %s", in.Type, money.Micros(smaller.MonthlyCost).Decimal(2), want.Decimal(2))
	}
}

// A pod of a workload that puts no more than k pods on a node (a topology spread on the
// hostname, under Karpenter) pays at least 1/k of its node: 6 one-GPU pods, 2 to a g6.12xlarge
// (4 L4s), cost 3 nodes. The cap is told only where it binds: not where the pod's CPU takes more
// of the node, nor where k pods fill its GPUs. Such pods are told the smaller node of the same
// GPUs, and no MIG slice.
func TestMaxPerNodePaysItsShare(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	const why = "its topologySpreadConstraints on kubernetes.io/hostname (maxSkew 2, line 9) count its own pods"
	pod := func(k int, cpu float64, families ...string) parser.Resource {
		r := parser.Resource{Address: "Deployment/s/chat", Provider: "aws", Region: "us-east-1", Quantity: 6, PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes,
			Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, CPU: cpu, MemoryGiB: 8, MaxPerNode: k, MaxPerNodeWhy: why}}
		if len(families) > 0 {
			r.Pod.Families = families
		} else {
			r.InstanceType = "g6.12xlarge"
		}
		return r
	}
	notes := func(e Estimate) string { return strings.Join(e.Notes, "|") }
	capped := p.Estimate(pod(2, 2))
	m, _ := capped.Monthly()
	// g6.12xlarge in us-east-1: $4.6016 an hour on demand; 6 pods at half a node each.
	if m.Cents() != expectCents(t, "730", "4.6016", "3") || capped.Pod.NodeShare != 0.5 {
		t.Fatalf("capped at 2: %s a month, node share %g", m.Decimal(2), capped.Pod.NodeShare)
	}
	if want := why + ", so no more than 2 of them share a node: each pays for 1/2 of a g6.12xlarge (4 GPUs), and uses 1 of its GPUs"; !strings.Contains(notes(capped), want) {
		t.Errorf("notes %q, want %q", notes(capped), want)
	}
	// 30 of 48 vCPUs: the CPU's share binds, and is what the note tells.
	cpu := p.Estimate(pod(2, 30))
	if cpu.Pod.NodeShare != 30.0/48 || strings.Contains(notes(cpu), "no more than 2") || !strings.Contains(notes(cpu), "CPU and memory requests take 62.5% of g6.12xlarge") {
		t.Errorf("CPU-bound: node share %g, notes %q", cpu.Pod.NodeShare, notes(cpu))
	}
	// 4 to a node of 4 GPUs: each pays its GPU's quarter, as without the cap.
	full := p.Estimate(pod(4, 2))
	if full.Pod.NodeShare != 0 || strings.Contains(notes(full), "share a node") {
		t.Errorf("4 to a 4-GPU node: node share %g, notes %q", full.Pod.NodeShare, notes(full))
	}
	if recs := p.Unprofiled(&full, pod(4, 2)); slices.ContainsFunc(recs, func(r Recommendation) bool { return r.Kind == RecSmallerInstance }) {
		t.Errorf("4 to a 4-GPU node told %+v", recs)
	}
	// Chosen by family: a g6.xlarge for each pod ($0.8048) costs less than half a g6.12xlarge.
	if chosen := p.Estimate(pod(2, 2, "g6")); chosen.InstanceType != "g6.xlarge" {
		t.Errorf("chose %q, want g6.xlarge", chosen.InstanceType)
	}
	recs := p.Unprofiled(&capped, pod(2, 2))
	if len(recs) == 0 || recs[0].Kind != RecSmallerInstance || recs[0].InstanceType != "g6.xlarge" ||
		recs[0].Reason != "no more than 2 of its pods share a node, and they use 2 of g6.12xlarge's 4 GPUs: a g6.xlarge (1× NVIDIA L4) holds one" {
		t.Fatalf("recommendations %+v, want g6.xlarge first", recs)
	}
	if got, want := money.Micros(recs[0].MonthlyCost).Cents(), expectCents(t, "730", "0.8048", "6"); got != want {
		t.Errorf("g6.xlarge for 6 pods: %d cents, want %d", got, want)
	}
	// 2-GPU pods, 2 to a g6.48xlarge (8 L4s): a g6.12xlarge holds two of them, for half the price.
	pair := pod(2, 2)
	pair.InstanceType, pair.Pod.Requested = "g6.48xlarge", 2
	big := p.Estimate(pair)
	recs = p.Unprofiled(&big, pair)
	if len(recs) == 0 || recs[0].InstanceType != "g6.12xlarge" ||
		recs[0].Reason != "no more than 2 of its pods share a node, and they use 4 of g6.48xlarge's 8 GPUs: a g6.12xlarge (4× NVIDIA L4) holds 2" {
		t.Fatalf("2-GPU pods: recommendations %+v, want g6.12xlarge first", recs)
	}
	if got, want := money.Micros(recs[0].MonthlyCost).Cents(), expectCents(t, "730", "4.6016", "3"); got != want {
		t.Errorf("g6.12xlarge for 6 pods, 2 to a node: %d cents, want %d", got, want)
	}
}

// Pods capped per node get no MIG slice: on a slice each would still pay its share of the node.
func TestMaxPerNodeGetsNoMIGSlice(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	r := parser.Resource{Address: "Deployment/a/b", Provider: "aws", Region: "us-east-1", InstanceType: "p4de.24xlarge", Quantity: 4, PurchaseOption: parser.OnDemand,
		Kind: parser.KindKubernetes, Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, MaxPerNode: 2, MaxPerNodeWhy: "spread"}}
	e := p.Estimate(r)
	p.Assess(&e, r, mustProfile(t, "workload: {type: inference}\nmodel: {preset: bert-large, precision: fp16}\ninference: {batch_size: 8, max_sequence_length: 512}\n"), DefaultThresholds)
	if e.Fit == nil || e.Fit.MIGSlice != "1g.10gb" {
		t.Fatalf("fit = %+v", e.Fit)
	}
	if mig, ok := rec(e, RecMIG); ok {
		t.Errorf("told a MIG slice: %+v", mig)
	}
}

// A node holds as many capped pods as its room takes, up to the cap: a g6.12xlarge (4 L4s, 48
// vCPUs) holds 3 one-GPU pods capped at 3, 4 capped at 5, and 2 that ask for 20 vCPUs each.
func TestPodsHeld(t *testing.T) {
	in, ok := catalog.MustDefault().Instance("aws", "g6.12xlarge")
	if !ok {
		t.Fatal("no g6.12xlarge")
	}
	for _, c := range []struct {
		cap  int
		cpu  float64
		want string
	}{{3, 2, "3"}, {5, 2, "4"}, {5, 20, "2"}, {1, 2, "one"}} {
		pod := &parser.PodGPUs{PerPodGPUs: 1, CPU: c.cpu, MaxPerNode: c.cap}
		if got := podsHeld(in, pod); got != c.want {
			t.Errorf("cap %d, %g vCPUs: holds %s, want %s", c.cap, c.cpu, got, c.want)
		}
	}
}
