package estimator

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// togetherPod is a workload of pods 1-GPU pods (2 CPUs, 8 GiB), together of which must share a
// node, and at most perNode of which a node holds (0: no cap).
func togetherPod(pods, together, perNode int) parser.Resource {
	return parser.Resource{Address: "JobSet/ml/train", Provider: "aws", Region: "us-east-1", Quantity: pods, PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes,
		Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, CPU: 2, MemoryGiB: 8,
			Together: together, TogetherWhy: "each Job's pods run on one node",
			MaxPerNode: perNode, MaxPerNodeWhy: "no other Job's pods share its node"}}
}

func TestTogetherPodsMustFitOneNode(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	notes := func(e Estimate) string { return strings.Join(e.Notes, "|") }

	// 4 pods of one Job on a g6.12xlarge (4 L4s): they fit, and pay a quarter each.
	fits := togetherPod(8, 4, 4)
	fits.InstanceType = "g6.12xlarge"
	e := p.Estimate(fits)
	if m, ok := e.Monthly(); !ok || m.Cents() != expectCents(t, "730", "4.6016", "2") {
		t.Fatalf("4 together on g6.12xlarge: %+v", e)
	}
	// The cap is the group: the note on the share, not a second one, says so.
	if strings.Contains(notes(e), "holds them") {
		t.Errorf("notes %q: said twice", notes(e))
	}

	// 5 pods of one Job on that node: one stays pending, and the resource is not priced.
	over := togetherPod(10, 5, 5)
	over.InstanceType = "g6.12xlarge"
	e = p.Estimate(over)
	want := "each Job's pods run on one node, but a g6.12xlarge holds 4 of them: the last one stays pending"
	if e.MonthlyCost != nil || e.UnpricedReason == nil || *e.UnpricedReason != want {
		t.Fatalf("5 together on g6.12xlarge: reason %v, want %q", e.UnpricedReason, want)
	}
	// Unpriced, it still names the node's GPU, not the resource the pods request.
	if g := e.GPU; g == nil || g.Model != "NVIDIA L4" || g.Count != float64(over.Pod.Requested) || g.MemoryGiB != 24 {
		t.Errorf("5 together on g6.12xlarge: GPU %+v", g)
	}
	// Admitted together (Kueue's topology-aware scheduling), none of them runs: Kueue keeps
	// the workload suspended.
	over.Pod.TogetherAdmitted = true
	e = p.Estimate(over)
	want = "each Job's pods run on one node, but a g6.12xlarge holds 4 of them: Kueue admits none of them, and the workload stays suspended"
	if e.MonthlyCost != nil || e.UnpricedReason == nil || *e.UnpricedReason != want {
		t.Fatalf("5 admitted together on g6.12xlarge: reason %v, want %q", e.UnpricedReason, want)
	}
	// Two past the node are counted.
	six := togetherPod(12, 6, 6)
	six.InstanceType = "g6.12xlarge"
	if e := p.Estimate(six); e.UnpricedReason == nil || !strings.HasSuffix(*e.UnpricedReason, "holds 4 of them: the other 2 stay pending") {
		t.Errorf("6 together on g6.12xlarge: reason %v", e.UnpricedReason)
	}
	// CPU binds too: 3 pods of 20 CPUs do not fit 48 vCPUs.
	cpu := togetherPod(3, 3, 0)
	cpu.InstanceType, cpu.Pod.CPU = "g6.12xlarge", 20
	if e := p.Estimate(cpu); e.UnpricedReason == nil || !strings.Contains(*e.UnpricedReason, "holds 2 of them") {
		t.Errorf("CPU-bound group: reason %v", e.UnpricedReason)
	}
	// A cap below the group (an anti-affinity beside it) leaves no node that holds it.
	apart := togetherPod(2, 2, 1)
	apart.InstanceType = "g6.12xlarge"
	if e := p.Estimate(apart); e.UnpricedReason == nil || !strings.Contains(*e.UnpricedReason, "holds 1 of them") {
		t.Errorf("anti-affinity and affinity: reason %v", e.UnpricedReason)
	}

	// Chosen by family: g6.xlarge holds one L4 pod, so three that must share a node get a
	// g6.12xlarge, priced at their three quarters of it.
	chosen := togetherPod(3, 3, 0)
	chosen.Pod.Families = []string{"g6"}
	e = p.Estimate(chosen)
	if e.InstanceType != "g6.12xlarge" {
		t.Fatalf("chose %q for 3 together, want g6.12xlarge", e.InstanceType)
	}
	if m, _ := e.Monthly(); m.Cents() != expectCents(t, "730", "4.6016", "0.75") {
		t.Errorf("3 together on g6.12xlarge: %s a month", m.Decimal(2))
	}
	if !strings.Contains(notes(e), "each Job's pods run on one node; a g6.12xlarge holds them") {
		t.Errorf("notes %q", notes(e))
	}
	// Free to spread, the same pods take a g6.xlarge each.
	alone := togetherPod(3, 0, 0)
	alone.Pod.Families = []string{"g6"}
	if e := p.Estimate(alone); e.InstanceType != "g6.xlarge" {
		t.Errorf("3 apart chose %q, want g6.xlarge", e.InstanceType)
	}
	// 9 L4 pods on one node: no g6 or gr6 type has 9 GPUs.
	none := togetherPod(9, 9, 0)
	none.Pod.Families = []string{"g6"}
	e = p.Estimate(none)
	if e.UnpricedReason == nil || !strings.HasPrefix(*e.UnpricedReason, "each Job's pods run on one node, but none of the ") || !strings.HasSuffix(*e.UnpricedReason, " holds 9 of them") {
		t.Errorf("9 together: reason %v", e.UnpricedReason)
	}
	// Admitted together, none of them runs there either.
	none.Pod.TogetherAdmitted = true
	if e := p.Estimate(none); e.UnpricedReason == nil || !strings.HasSuffix(*e.UnpricedReason, " holds 9 of them: Kueue admits none of them, and the workload stays suspended") {
		t.Errorf("9 admitted together: reason %v", e.UnpricedReason)
	}
}

// A smaller node of the same GPUs is told only when it holds a whole group.
func TestTogetherSmallerNodeHoldsTheGroup(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	// Jobs of 3 one-GPU pods alone on g6.48xlarge (8 L4s): a g6.12xlarge (4) holds a Job; a
	// g6.xlarge each would cost less, but a Job's pods cannot spread over three.
	r := togetherPod(6, 3, 3)
	r.InstanceType = "g6.48xlarge"
	e := p.Estimate(r)
	recs := p.Unprofiled(&e, r)
	i := slices.IndexFunc(recs, func(x Recommendation) bool { return x.Kind == RecSmallerInstance })
	if i < 0 || recs[i].InstanceType != "g6.12xlarge" {
		t.Fatalf("recommendations %+v, want g6.12xlarge", recs)
	}
	if got, want := money.Micros(recs[i].MonthlyCost).Cents(), expectCents(t, "730", "4.6016", "2"); got != want {
		t.Errorf("g6.12xlarge for 2 Jobs: %d cents, want %d", got, want)
	}
	// One pod of a role in a group of two (a RoleBasedGroup's prefill and decode) on a
	// g6.12xlarge: a g6.xlarge holds this pod but not its group. Capped by a spread instead,
	// the pods may go one to a g6.xlarge.
	for _, group := range []bool{true, false} {
		r := togetherPod(2, 0, 2)
		r.InstanceType, r.Pod.MaxPerNodeGroup = "g6.12xlarge", group
		e := p.Estimate(r)
		recs := p.Unprofiled(&e, r)
		told := slices.ContainsFunc(recs, func(x Recommendation) bool { return x.Kind == RecSmallerInstance })
		if told == group {
			t.Errorf("group %v: recommendations %+v", group, recs)
		}
	}
}

func TestPodsFit(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	in, _ := p.Catalog.Instance("aws", "g6.12xlarge") // 4 L4s, 48 vCPUs, 192 GiB
	for _, c := range []struct {
		gpuShare, cpu, mem float64
		cap, want          int
	}{
		{0.25, 2, 8, 0, 4},
		{0.25, 2, 8, 3, 3},
		{0.5, 2, 8, 0, 2},
		{0.25, 20, 8, 0, 2},
		{0.25, 2, 100, 0, 1},
		{0, 0, 0, 0, math.MaxInt32}, // asks for nothing: no limit
	} {
		pod := &parser.PodGPUs{CPU: c.cpu, MemoryGiB: c.mem, MaxPerNode: c.cap}
		if got := podsFit(in, c.gpuShare, pod); got != c.want {
			t.Errorf("gpu share %g, %g CPUs, %g GiB, cap %d: %d pods, want %d", c.gpuShare, c.cpu, c.mem, c.cap, got, c.want)
		}
	}
}

// On GKE, N1 VMs take T4s attached: pods that must share a node get a VM with GPUs enough for
// all of them, not one each.
func TestTogetherOnAttachedGPUs(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	t4 := func(together int) parser.Resource {
		r := togetherPod(together, together, 0)
		r.Provider, r.Region = "gcp", "us-central1"
		r.Pod.GPUNames = []string{"nvidia-tesla-t4"}
		return r
	}
	attached := func(e Estimate) string {
		for _, n := range e.Notes {
			if strings.HasPrefix(n, "GKE node: ") {
				return n
			}
		}
		return ""
	}
	one := t4(1)
	one.Pod.Together = 0
	if e := p.Estimate(one); !strings.Contains(attached(e), "with 1× nvidia-tesla-t4 attached") {
		t.Fatalf("one T4 pod: %q", e.Notes)
	}
	e := p.Estimate(t4(3))
	if !strings.Contains(attached(e), "with 4× nvidia-tesla-t4 attached") || strings.Contains(strings.Join(e.Notes, "|"), "stay idle") {
		t.Errorf("3 T4 pods together: %q", e.Notes)
	}
	if !strings.Contains(strings.Join(e.Notes, "|"), "each Job's pods run on one node; a "+e.InstanceType+" holds them") {
		t.Errorf("3 T4 pods together: notes %q", e.Notes)
	}
	// GCP attaches 4 T4s at most: 5 pods of one each fit no N1 VM.
	e = p.Estimate(t4(5))
	if e.UnpricedReason == nil || !strings.Contains(*e.UnpricedReason, "but none of the ") || !strings.HasSuffix(*e.UnpricedReason, " holds 5 of them") {
		t.Errorf("5 T4 pods together: reason %v", e.UnpricedReason)
	}
}
