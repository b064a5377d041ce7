package estimator

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/parser"
)

// besidePod is a LeaderWorkerSet's workers: 2 groups of own 1-GPU pods (2 CPUs, 8 GiB) that
// share a node with their leader of leaderGPUs GPUs, 4 CPUs and 16 GiB.
func besidePod(own int, leaderGPUs int64) parser.Resource {
	r := togetherPod(2*own, own, own+1)
	r.Address = "LeaderWorkerSet/ml/vllm[\"worker\"]"
	r.Pod.BesideOwn, r.Pod.BesideWhy = own, "each group's leader and workers share a node"
	r.Pod.Beside = []parser.NodeMate{{Pods: 1, Resource: "nvidia.com/gpu", GPUs: leaderGPUs, CPU: 4, MemoryGiB: 16}}
	return r
}

// Pods that share a node with another role's must fit it together with them: on a node named,
// or when gpuguard chooses one.
func TestBesidePodsMustFitOneNode(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	// 3 workers and a 1-GPU leader fill a g6.12xlarge (4 L4s).
	fits := besidePod(3, 1)
	fits.InstanceType = "g6.12xlarge"
	if e := p.Estimate(fits); e.UnpricedReason != nil {
		t.Fatalf("3 workers and a 1-GPU leader on g6.12xlarge: %s", *e.UnpricedReason)
	}
	// With a 2-GPU leader they need 5 L4s: the workers alone fit, the group does not.
	over := besidePod(3, 2)
	over.InstanceType = "g6.12xlarge"
	e := p.Estimate(over)
	want := "each group's leader and workers share a node, but a g6.12xlarge does not hold them: they request 5 GPUs together, and it has 4"
	if e.MonthlyCost != nil || e.UnpricedReason == nil || *e.UnpricedReason != want {
		t.Fatalf("a 2-GPU leader beside 3 workers on g6.12xlarge: reason %v, want %q", e.UnpricedReason, want)
	}
	// Admitted together (a Kueue PodSet group), none of them runs: Kueue keeps the workload
	// suspended, and the reason says so.
	over.Pod.BesideAdmitted = true
	want = "each group's leader and workers share a node, but a g6.12xlarge does not hold them (they request 5 GPUs together, and it has 4): Kueue admits none of them, and the workload stays suspended"
	if e := p.Estimate(over); e.MonthlyCost != nil || e.UnpricedReason == nil || *e.UnpricedReason != want {
		t.Errorf("admitted together: reason %v, want %q", e.UnpricedReason, want)
	}
	// CPU binds too: a leader of 44 CPUs beside 3 workers of 2 needs 50 of 48.
	cpu := besidePod(3, 1)
	cpu.InstanceType, cpu.Pod.Beside[0].CPU = "g6.12xlarge", 44
	if e := p.Estimate(cpu); e.UnpricedReason == nil || !strings.Contains(*e.UnpricedReason, "they request 50 vCPUs together, and it has 48") {
		t.Errorf("CPU-bound group: reason %v", e.UnpricedReason)
	}
	// A leader of no GPUs takes only CPUs and memory: the workers' 3 L4s and 6 vCPUs fit a
	// g6.12xlarge beside a leader of 40 vCPUs, not beside one of 44.
	cpuOnly := besidePod(3, 0)
	cpuOnly.InstanceType, cpuOnly.Pod.Beside[0].Resource, cpuOnly.Pod.Beside[0].CPU = "g6.12xlarge", "", 40
	if e := p.Estimate(cpuOnly); e.UnpricedReason != nil {
		t.Errorf("a CPU-only leader of 40 vCPUs: %s", *e.UnpricedReason)
	}
	cpuOnly.Pod.Beside[0].CPU = 44
	if e := p.Estimate(cpuOnly); e.UnpricedReason == nil || !strings.HasSuffix(*e.UnpricedReason, "they request 50 vCPUs together, and it has 48") {
		t.Errorf("a CPU-only leader of 44 vCPUs: reason %v", e.UnpricedReason)
	}
	// Memory too, and each resource past the node's is named.
	mem := besidePod(3, 2)
	mem.InstanceType, mem.Pod.Beside[0].MemoryGiB = "g6.12xlarge", 180
	if e := p.Estimate(mem); e.UnpricedReason == nil || !strings.HasSuffix(*e.UnpricedReason, "they request 5 GPUs and 204 GiB together, and it has 4 and 192") {
		t.Errorf("GPU- and memory-bound group: reason %v", e.UnpricedReason)
	}
	// A leader of another GPU resource is not judged.
	other := besidePod(3, 2)
	other.InstanceType, other.Pod.Beside[0].Resource = "g6.12xlarge", "amd.com/gpu"
	if e := p.Estimate(other); e.UnpricedReason != nil {
		t.Errorf("a leader of AMD GPUs: %s", *e.UnpricedReason)
	}
	// unitsFit checks pods of one resource beside a leader of fits units, which the node holds,
	// and then of over, which it does not: the reason names the units (want).
	unitsFit := func(name string, r parser.Resource, fits, over int64, want string) {
		r.Pod.Beside[0].GPUs = fits
		if e := p.Estimate(r); e.UnpricedReason != nil {
			t.Errorf("%s, a leader of %d: %s", name, fits, *e.UnpricedReason)
		}
		r.Pod.Beside[0].GPUs = over
		if e := p.Estimate(r); e.UnpricedReason == nil || !strings.HasSuffix(*e.UnpricedReason, want) {
			t.Errorf("%s, a leader of %d: reason %v, want %q", name, over, e.UnpricedReason, want)
		}
	}
	// Pods on MIG slices count in slices: a p4d.24xlarge's 8 A100 40GBs hold 56 1g.5gb slices,
	// 3 workers' and a leader's 53, not 3 and 60.
	mig := besidePod(3, 0)
	mig.InstanceType, mig.Pod.Resource, mig.Pod.MIGProfile, mig.Pod.Beside[0].Resource = "p4d.24xlarge", "nvidia.com/mig-1g.5gb", "1g.5gb", "nvidia.com/mig-1g.5gb"
	unitsFit("MIG slices", mig, 50, 60, "they request 63 nvidia.com/mig-1g.5gb together, and it has 56")
	// Time-shared GPUs count in units: a g6.12xlarge's 4 L4s shared 2 ways are 8 units, which
	// 3 workers and a leader of 5 fill, and one of 6 does not.
	shared := besidePod(3, 0)
	shared.InstanceType, shared.Pod.SharedReplicas, shared.Pod.SharingStrategy = "g6.12xlarge", 2, parser.SharingTimeSlicing
	unitsFit("time-shared", shared, 5, 6, "they request 9 nvidia.com/gpu together, and it has 8")
	// A pod that requests no units (its GPUs all come through claims of its own) is judged
	// by its CPUs and memory, not by the units of the pods beside it.
	g6, _ := p.Catalog.Instance(parser.AWS, "g6.12xlarge")
	noUnits := besidePod(3, 1)
	noUnits.Pod.Requested = 0
	if ok, need := besideFits(g6, 0, noUnits.Pod); !ok {
		t.Errorf("a pod of no units beside a 1-GPU leader: %q", need)
	}
	noUnits.Pod.Beside[0].CPU = 44
	if ok, need := besideFits(g6, 0, noUnits.Pod); ok || need != "they request 50 vCPUs together, and it has 48" {
		t.Errorf("a pod of no units beside a leader of 44 vCPUs: %v, %q", ok, need)
	}
	// Nor are pods that share a claim's devices.
	claim := besidePod(3, 100)
	claim.InstanceType, claim.Pod.SharedClaims = "g6.12xlarge", []parser.SharedClaim{{Address: "ResourceClaim/ml/gpus", GPUs: 1, Pods: 3}}
	if e := p.Estimate(claim); e.UnpricedReason != nil {
		t.Errorf("a shared claim: %s", *e.UnpricedReason)
	}
	// Shared with sharers not known, a unit's size is not known: not judged.
	unknown := besidePod(3, 100)
	unknown.InstanceType, unknown.Pod.Resource, unknown.Pod.Beside[0].Resource = "g6.12xlarge", "nvidia.com/gpu.shared", "nvidia.com/gpu.shared"
	if e := p.Estimate(unknown); e.UnpricedReason != nil {
		t.Errorf("shared, sharers not known: %s", *e.UnpricedReason)
	}
	// Chosen by GPU: the node holds the workers and the leader, 5 L4s: a g6.48xlarge (8), not
	// a g6.12xlarge (4), which holds the workers alone.
	chosen := besidePod(3, 2)
	chosen.Pod.GPUNames = []string{"L4"}
	e = p.Estimate(chosen)
	if e.UnpricedReason != nil || e.InstanceType != "g6.48xlarge" {
		t.Errorf("chosen for 3 workers and a 2-GPU leader: %q, reason %v", e.InstanceType, e.UnpricedReason)
	}
	// The note says why the cheaper types were passed over: the g6.12xlarge and g6.24xlarge
	// (4 L4s each) hold the workers, not the leader too.
	if !slices.ContainsFunc(e.Notes, func(n string) bool {
		return strings.HasPrefix(n, "node type estimated: ") && strings.HasSuffix(n, " (passed over: 2 types where its own pods fit, but not with the other roles' pods beside them)")
	}) {
		t.Errorf("chosen for 3 workers and a 2-GPU leader: notes %q", e.Notes)
	}
	// No L4 node holds 3 workers beside a 6-GPU leader (9 L4s).
	none := besidePod(3, 6)
	none.Pod.GPUNames = []string{"L4"}
	e = p.Estimate(none)
	if e.UnpricedReason == nil || !strings.HasPrefix(*e.UnpricedReason, "each group's leader and workers share a node, but none of the ") || !strings.HasSuffix(*e.UnpricedReason, " catalog types the pod's labels allow holds them all") {
		t.Errorf("no node for 9 L4s: %s", *e.UnpricedReason)
	}
	none.Pod.BesideAdmitted = true
	if e := p.Estimate(none); e.UnpricedReason == nil || !strings.HasSuffix(*e.UnpricedReason, " holds them all: Kueue admits none of them, and the workload stays suspended") {
		t.Errorf("no node for 9 L4s admitted together: reason %v", e.UnpricedReason)
	}
}

// A smaller node is named for a role whose group of several roles shares its node only if it
// holds the group as it is, each role's pods as they are: a leader of 2 L4s beside 2 workers of
// 1 fits a g6.12xlarge (4 L4s), though 3 pods like the leader would not; one of 1 L4 beside 3
// workers of 2 does not, though 4 pods like the leader would.
func TestBesideSmallerNode(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	leader := func(gpus int64, workers int, workerGPUs int64) parser.Resource {
		r := togetherPod(2, 0, workers+1)
		r.Address, r.InstanceType, r.Pod.Requested = "LeaderWorkerSet/ml/vllm[\"leader\"]", "g6.48xlarge", gpus
		r.Pod.MaxPerNodeGroup, r.Pod.BesideOwn, r.Pod.BesideWhy = true, 1, "each group's leader and workers share a node"
		r.Pod.Beside = []parser.NodeMate{{Pods: workers, Resource: "nvidia.com/gpu", GPUs: workerGPUs, CPU: 2, MemoryGiB: 8}}
		return r
	}
	smaller := func(r parser.Resource) string {
		e := p.Estimate(r)
		if e.UnpricedReason != nil {
			t.Fatalf("%s: %s", r.Address, *e.UnpricedReason)
		}
		for _, x := range p.Unprofiled(&e, r) {
			if x.Kind == RecSmallerInstance {
				return x.InstanceType
			}
		}
		return ""
	}
	if got := smaller(leader(2, 2, 1)); got != "g6.12xlarge" {
		t.Errorf("a 2-L4 leader beside 2 one-L4 workers: smaller node %q, want g6.12xlarge", got)
	}
	if got := smaller(leader(1, 3, 2)); got != "" {
		t.Errorf("a 1-L4 leader beside 3 two-L4 workers: smaller node %q, want none", got)
	}
}
