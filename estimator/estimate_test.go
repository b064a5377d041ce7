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

// pooled is a pod workload placed by a NodePool that limits nvidia.com/gpu: gpus per pod,
// floor pods costing floor dollars, and (when maxPods > floorPods) maxPods costing atMax.
func pooled(root, pool string, limit float64, gpus int64, floorPods int, floor float64, maxPods int, atMax float64) Estimate {
	m := money.Amount(money.FromDollars(floor))
	e := Estimate{Root: root, Quantity: floorPods, MonthlyCost: &m,
		Pod:         &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: gpus},
		SharedLimit: &parser.SharedLimit{Owner: pool, Limit: limit, Unit: "nvidia.com/gpu", PerInstance: float64(gpus)}}
	if maxPods > floorPods {
		e.ScaleMax = &ScaleMaxCost{Quantity: maxPods, MonthlyCost: money.Amount(money.FromDollars(atMax))}
	}
	return e
}

// The maximum total of workloads sharing a pool's GPU limit counts no more GPUs than the limit:
// every floor, then the growth that pays most per GPU first, the last one in proportion.
func TestSumCapsWorkloadsSharingAPoolLimit(t *testing.T) {
	for _, c := range []struct {
		limit float64
		want  float64
	}{
		// Floors 4 + 1 + 2 = 7 GPUs ($1,800); 9 left. b grows by 9 GPUs for $2,700 ($300 a
		// GPU), a by 8 for $2,000 ($250 a GPU): b fills the limit.
		{16, 1800 + 2700},
		// 5 left: five ninths of b's growth.
		{12, 1800 + 1500},
		// 13 left: all of b, then 4 of a's 8 GPUs (half its growth).
		{20, 1800 + 2700 + 1000},
		// Room for everything: the plain sum of maximums.
		{100, 3000 + 3000 + 500},
		// Floors past the limit (the parser warns): the floors, no growth.
		{6, 1800},
	} {
		es := []Estimate{
			pooled("k8s", "NodePool/gpu", c.limit, 4, 1, 1000, 3, 3000),
			pooled("k8s", "NodePool/gpu", c.limit, 1, 1, 300, 10, 3000),
			pooled("k8s", "NodePool/gpu", c.limit, 2, 1, 500, 1, 0), // no autoscaler: its floor takes 2 GPUs
		}
		tot := Sum(es)
		if tot.MonthlyCost != money.Amount(money.FromDollars(1800)) {
			t.Fatalf("limit %v: monthly %v", c.limit, tot.MonthlyCost)
		}
		if tot.MaxMonthlyCost == nil || *tot.MaxMonthlyCost != money.Amount(money.FromDollars(c.want)) {
			t.Errorf("limit %v: max %s, want %v", c.limit, amount(tot.MaxMonthlyCost), c.want)
		}
	}
	// The same pool name in another root is another cluster's pool; a workload without a
	// shared limit is summed at its maximum as before.
	other := pooled("other", "NodePool/gpu", 16, 1, 1, 300, 10, 3000)
	free := pooled("k8s", "", 0, 1, 1, 300, 10, 3000)
	free.SharedLimit = nil
	es := []Estimate{
		pooled("k8s", "NodePool/gpu", 16, 4, 1, 1000, 3, 3000),
		pooled("k8s", "NodePool/gpu", 16, 1, 1, 300, 10, 3000),
		pooled("k8s", "NodePool/gpu", 16, 2, 1, 500, 1, 0),
		other, free,
	}
	if tot := Sum(es); tot.MaxMonthlyCost == nil || *tot.MaxMonthlyCost != money.Amount(money.FromDollars(4500+3000+3000)) {
		t.Errorf("max %s, want 10500", amount(tot.MaxMonthlyCost))
	}
	// The limits reports name: the pool shared by three, once; not the other root's pool, whose
	// one workload it does not cap.
	if ls := SharedLimits(es); len(ls) != 1 || ls[0] != es[0].SharedLimit {
		t.Errorf("shared limits %+v", ls)
	}
}

func amount(a *money.Amount) string {
	if a == nil {
		return "none"
	}
	return money.Micros(*a).String()
}

// A limit in vCPUs (an EMR cluster's managed scaling) takes each instance's vCPUs from the
// catalog; the maximum total then counts the groups within it, pricing from real estimates.
func TestSharedLimitInVCPUs(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	limit := &parser.SharedLimit{Owner: "aws_emr_cluster.c", What: "managed scaling maximum of 32 vCPUs", Limit: 32, Unit: parser.UnitVCPU}
	group := func(addr, typ string, n, maxVCPUs int) parser.Resource {
		return parser.Resource{Address: addr, Provider: parser.AWS, Region: "us-east-1", InstanceType: typ, Quantity: n,
			PurchaseOption: parser.OnDemand, SharedLimit: limit, ScaleMax: &parser.ScaleMax{VCPUs: maxVCPUs}}
	}
	// g6.2xlarge has 8 vCPUs, g6.xlarge 4: floors 8 + 4 vCPUs, each alone up to 32 (4 and 8
	// instances), together 32.
	es := p.EstimateAll([]parser.Resource{group("core", "g6.2xlarge", 1, 32), group("task", "g6.xlarge", 1, 32)})
	if l := es[0].SharedLimit; l == nil || l.PerInstance != 8 {
		t.Fatalf("core share %+v", l)
	}
	if l := es[1].SharedLimit; l == nil || l.PerInstance != 4 {
		t.Fatalf("task share %+v", l)
	}
	if limit.PerInstance != 0 {
		t.Fatal("the parser's limit was changed")
	}
	if es[0].ScaleMax == nil || es[0].ScaleMax.Quantity != 4 || es[1].ScaleMax == nil || es[1].ScaleMax.Quantity != 8 {
		t.Fatalf("maximums %+v %+v", es[0].ScaleMax, es[1].ScaleMax)
	}
	// 20 vCPUs left after the floors. Per vCPU the two cost the same to the cent or so (g6 is
	// priced by size), so the bound is the floors plus 20 vCPUs' worth, not both maximums.
	perVCPU := func(e Estimate) float64 {
		floor, _ := e.Monthly()
		return float64(money.Micros(e.ScaleMax.MonthlyCost)-floor) / float64((e.ScaleMax.Quantity-e.Quantity)*int(e.SharedLimit.PerInstance))
	}
	floors := money.Micros(*es[0].MonthlyCost) + money.Micros(*es[1].MonthlyCost)
	hi := max(perVCPU(es[0]), perVCPU(es[1]))
	tot := Sum(es)
	both := money.Micros(es[0].ScaleMax.MonthlyCost) + money.Micros(es[1].ScaleMax.MonthlyCost)
	if tot.MaxMonthlyCost == nil || money.Micros(*tot.MaxMonthlyCost) >= both ||
		math.Abs(float64(money.Micros(*tot.MaxMonthlyCost)-floors)-20*hi) > 1 {
		t.Fatalf("max %s: floors %v + 20 × %v, both maximums %v", amount(tot.MaxMonthlyCost), floors, hi, both)
	}
	// A type the catalog does not know has no vCPU count: it is left out of the limit.
	if e := p.Estimate(group("x", "x9.huge", 1, 32)); e.SharedLimit != nil || !slices.ContainsFunc(e.Notes, func(n string) bool {
		return strings.Contains(n, "x9.huge's are not in the catalog: its maximum is counted on its own")
	}) {
		t.Fatalf("unknown type in a vCPU limit: %+v %q", e.SharedLimit, e.Notes)
	}
}

// priced is an estimate of qty instances or pods with gpus each, costing monthly dollars, and
// atMax at its autoscaler's maximum when atMax > 0.
func priced(id string, gpus float64, qty int, monthly, atMax float64) Estimate {
	m := money.Amount(money.FromDollars(monthly))
	e := Estimate{Address: id, ID: id, Quantity: qty, MonthlyCost: &m, GPU: &GPUInfo{Count: gpus}}
	if atMax > 0 {
		e.ScaleMax = &ScaleMaxCost{MonthlyCost: money.Amount(money.FromDollars(atMax))}
	}
	return e
}

// Pods on a node group among the estimates count once with it: the larger of the group's cost
// and theirs, at the floor and at the maximum alike, and the same for GPUs. A group that is
// unpriced leaves its pods counted on their own.
func TestSumCountsPodsWithinTheirNodeGroup(t *testing.T) {
	on := func(e Estimate, group string) Estimate {
		e.NodeGroup, e.Pod = group, &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, NodeGroups: []parser.GroupRef{{Address: group}}}
		return e
	}
	cases := []struct {
		name      string
		es        []Estimate
		monthly   float64
		max       float64 // 0: no maximum
		gpus      float64
		unpriced  int
		resources int
	}{
		{"pods within the group's nodes", []Estimate{
			priced("pool", 2, 3, 2400, 0),
			on(priced("deploy", 1, 3, 1200, 0), "pool"),
			on(priced("job", 1, 1, 400, 0), "pool"),
			priced("other", 1, 1, 1000, 0),
		}, 2400 + 1000, 0, 6 + 1, 0, 4},
		{"pods that need more than the group's floor", []Estimate{
			priced("pool", 2, 1, 800, 3200),
			on(priced("deploy", 1, 3, 1200, 2000), "pool"),
		}, 1200, 3200, 3, 0, 2},
		{"pods past the group's maximum, which is not summed up (no PodsOnGroup: known only at apply)", []Estimate{
			priced("pool", 2, 1, 800, 1600),
			on(priced("deploy", 1, 3, 1200, 4000), "pool"),
		}, 1200, 4000, 3, 0, 2},
		{"an unpriced group", []Estimate{
			{Address: "pool", ID: "pool", Quantity: 2, GPU: &GPUInfo{Count: 1}},
			on(priced("deploy", 1, 1, 400, 0), "pool"),
		}, 400, 0, 2, 1, 2}, // its GPUs are known: the pods run on them
	}
	for _, c := range cases {
		tot := Sum(c.es)
		if tot.MonthlyCost != money.Amount(money.FromDollars(c.monthly)) || tot.GPUs != c.gpus || tot.Unpriced != c.unpriced || tot.Resources != c.resources {
			t.Errorf("%s: monthly %v, gpus %v, unpriced %d, resources %d; want %v, %v, %d, %d",
				c.name, tot.MonthlyCost, tot.GPUs, tot.Unpriced, tot.Resources, c.monthly, c.gpus, c.unpriced, c.resources)
		}
		if c.max == 0 && tot.MaxMonthlyCost != nil || c.max > 0 && (tot.MaxMonthlyCost == nil || *tot.MaxMonthlyCost != money.Amount(money.FromDollars(c.max))) {
			t.Errorf("%s: max %s, want %v", c.name, amount(tot.MaxMonthlyCost), c.max)
		}
	}
}

// The totals are a bound when the priced resources' bounds all point one way; a bound on a
// resource that is not priced does not enter the total, so it does not bound it either.
func TestSumSaysWhenTheTotalIsABound(t *testing.T) {
	cost := func(dollars float64, bound string) Estimate {
		m := money.Amount(money.FromDollars(dollars))
		return Estimate{Quantity: 1, MonthlyCost: &m, PriceBound: bound}
	}
	unpricedUpper := Estimate{Quantity: 1, PriceBound: BoundUpper}
	for _, c := range []struct {
		name string
		es   []Estimate
		want string
	}{
		{"none", []Estimate{cost(10, ""), cost(20, "")}, ""},
		{"lower", []Estimate{cost(10, ""), cost(20, BoundLower)}, BoundLower},
		{"upper", []Estimate{cost(10, BoundUpper), cost(20, "")}, BoundUpper},
		{"both ways: neither", []Estimate{cost(10, BoundUpper), cost(20, BoundLower)}, ""},
		{"an unpriced bound is not in the total", []Estimate{cost(20, BoundLower), unpricedUpper}, BoundLower},
	} {
		if got := Sum(c.es).PriceBound; got != c.want {
			t.Errorf("%s: price bound %q, want %q", c.name, got, c.want)
		}
	}
}

// A shared DRA claim's devices take a pool's limit once, however many pods name it; the pods an
// autoscaler adds take only their own devices.
func TestSumCountsSharedClaimsOnceWithinAPoolLimit(t *testing.T) {
	claim := parser.SharedClaim{Address: "ResourceClaim/ml/pair", GPUs: 2, Pods: 3}
	// Three pods of one Deployment, or of two, share the claim's 2 GPUs: its floor takes 2 of
	// the 5, not 2 a pod.
	sharers := pooled("k8s", "NodePool/gpu", 5, 2, 2, 400, 2, 0)
	sharers.Pod.SharedClaims = []parser.SharedClaim{claim}
	more := pooled("k8s", "NodePool/gpu", 5, 2, 1, 200, 1, 0)
	more.Pod.SharedClaims = []parser.SharedClaim{claim}
	// Pods of their own GPU, $100 a pod from 1 to 10: 2 GPUs are left for them to grow by.
	grower := pooled("k8s", "NodePool/gpu", 5, 1, 1, 100, 10, 1000)
	tot := Sum([]Estimate{sharers, more, grower})
	if tot.MaxMonthlyCost == nil || *tot.MaxMonthlyCost != money.Amount(money.FromDollars(700+200)) {
		t.Errorf("max %s, want 900", amount(tot.MaxMonthlyCost))
	}
	// Pods of 1 GPU of their own and the claim's 2, from 1 to 3 ($300 a GPU they add): their
	// floor takes 3 of 6, the grower's 1, and each added pod 1 more, so both fit in the 2 left
	// (counting each at 3 GPUs, only a third of them would).
	mixed := pooled("k8s", "NodePool/gpu", 6, 3, 1, 300, 3, 900)
	mixed.Pod.SharedClaims = []parser.SharedClaim{claim}
	grower.SharedLimit = &parser.SharedLimit{Owner: "NodePool/gpu", Limit: 6, Unit: "nvidia.com/gpu", PerInstance: 1}
	tot = Sum([]Estimate{mixed, grower})
	if tot.MaxMonthlyCost == nil || *tot.MaxMonthlyCost != money.Amount(money.FromDollars(900+100)) {
		t.Errorf("mixed: max %s, want 1000", amount(tot.MaxMonthlyCost))
	}
	// A limit that counts something else of the pods (a quota on their template claims' class,
	// whose PerInstance is not their request) takes each pod's share as it is.
	classQuota := func(e Estimate) Estimate {
		e.SharedLimit = &parser.SharedLimit{Owner: "ResourceQuota/ml/devices", Limit: 4, Unit: "gpu.nvidia.com.deviceclass.resource.k8s.io/devices", PerInstance: 1, Admission: true}
		return e
	}
	templated := classQuota(pooled("k8s", "", 0, 2, 1, 200, 4, 800)) // 1 device from its template, 1 from the claim
	templated.Pod.SharedClaims = []parser.SharedClaim{{Address: "ResourceClaim/ml/one", GPUs: 1, Pods: 1}}
	tot = Sum([]Estimate{templated, classQuota(pooled("k8s", "", 0, 1, 1, 100, 10, 1000))})
	// Floors 1 + 1 of 4: the templated pods grow by 2 of their 3 ($200 a device).
	if tot.MaxMonthlyCost == nil || *tot.MaxMonthlyCost != money.Amount(money.FromDollars(300+400)) {
		t.Errorf("class quota: max %s, want 700", amount(tot.MaxMonthlyCost))
	}
}
