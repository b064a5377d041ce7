package estimator

import (
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
			Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, CPU: 2, MemoryGiB: 8, OnePerNode: onePerNode}}
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
