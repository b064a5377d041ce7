package estimator

import (
	"testing"

	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// pooled is a pod workload placed by a NodePool that limits nvidia.com/gpu: gpus per pod,
// floor pods costing floor dollars, and (when maxPods > floorPods) maxPods costing atMax.
func pooled(root, pool string, limit float64, gpus int64, floorPods int, floor float64, maxPods int, atMax float64) Estimate {
	m := money.Amount(money.FromDollars(floor))
	e := Estimate{Root: root, Quantity: floorPods, MonthlyCost: &m,
		Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: gpus, SharedLimit: &parser.SharedLimit{Pool: pool, Devices: limit}}}
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
	free.Pod.SharedLimit = nil
	es := []Estimate{
		pooled("k8s", "NodePool/gpu", 16, 4, 1, 1000, 3, 3000),
		pooled("k8s", "NodePool/gpu", 16, 1, 1, 300, 10, 3000),
		pooled("k8s", "NodePool/gpu", 16, 2, 1, 500, 1, 0),
		other, free,
	}
	if tot := Sum(es); tot.MaxMonthlyCost == nil || *tot.MaxMonthlyCost != money.Amount(money.FromDollars(4500+3000+3000)) {
		t.Errorf("max %s, want 10500", amount(tot.MaxMonthlyCost))
	}
}

func amount(a *money.Amount) string {
	if a == nil {
		return "none"
	}
	return money.Micros(*a).String()
}
