package estimator

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpuguard/gpuguard/estimator/memory"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/profiles"
)

// Recommendation kinds.
const (
	RecSmallerInstance = "smaller_instance"
	RecSpot            = "spot"
	RecCommitment      = "commitment"
	RecMIG             = "mig"
)

// recommend lists cheaper ways to run the same workload, each with its monthly cost and saving:
// the cheapest catalog instance in the same provider and region whose GPUs hold the workload
// with headroom; spot when the workload is interruptible; 1- and 3-year commitments when it runs
// all month on demand; a MIG slice when one holds it.
func (p *Pricer) recommend(e *Estimate, r parser.Resource, prof *profiles.Profile, mem *memory.Estimate, t gpuTarget, th Thresholds) []Recommendation {
	current, _ := e.Monthly()
	var out []Recommendation
	add := func(rec Recommendation, monthly money.Micros) {
		saving := current - monthly
		if saving <= 0 {
			return
		}
		rec.MonthlyCost, rec.MonthlySaving = money.Amount(monthly), money.Amount(saving)
		out = append(out, rec)
	}
	if rec, monthly, ok := p.smallerInstance(e, r, prof, mem, th); ok {
		add(rec, monthly)
		if e.Fit != nil && e.Fit.Verdict == VerdictDoesNotFit {
			rec.MonthlyCost, rec.MonthlySaving = money.Amount(monthly), money.Amount(current-monthly)
			rec.Kind, rec.Reason = "fits", strings.Replace(rec.Reason, "holds the workload", "holds the workload the current type cannot", 1)
			e.Fit.CheapestFit = &rec
		}
	}
	if prof.Workload.Interruptible && r.PurchaseOption != parser.Spot {
		alt := r
		alt.PurchaseOption, alt.SpotQuantity = parser.Spot, 0
		if est := p.Estimate(alt); est.MonthlyCost != nil {
			m, _ := est.Monthly()
			add(Recommendation{Kind: RecSpot, InstanceType: e.InstanceType, PurchaseOption: string(parser.Spot), PriceEstimated: est.PriceEstimated,
				Reason: "the workload is interruptible (it checkpoints and resumes): spot capacity fits it"}, m)
		}
	}
	if r.PurchaseOption == parser.OnDemand && e.HoursPerMonth >= DefaultHoursPerMonth && !prof.Workload.Interruptible {
		for _, opt := range []parser.PurchaseOption{parser.Reserved1y, parser.Reserved3y} {
			alt := r
			alt.PurchaseOption, alt.SpotQuantity = opt, 0
			if est := p.Estimate(alt); est.MonthlyCost != nil {
				m, _ := est.Monthly()
				term := "1-year"
				if opt == parser.Reserved3y {
					term = "3-year"
				}
				add(Recommendation{Kind: RecCommitment, InstanceType: e.InstanceType, PurchaseOption: string(opt), PriceEstimated: est.PriceEstimated,
					Reason: fmt.Sprintf("runs all month on demand: a %s commitment costs less", term)}, m)
			}
		}
	}
	if e.Fit != nil && e.Fit.MIGSlice != "" {
		if slice, ok := findMIG(t.gpu, e.Fit.MIGSlice); ok {
			// Each copy needs one GPU; on a slice it pays the slice's share of that GPU.
			share := MIGShare(t.gpu, slice)
			paid, copies := p.gpusPaid(e, r)
			if paid > 0 {
				monthly := current.Mul(share * copies / paid)
				add(Recommendation{Kind: RecMIG, InstanceType: e.InstanceType, PurchaseOption: string(r.PurchaseOption), PriceEstimated: e.PriceEstimated,
					Reason: fmt.Sprintf("fits a %s MIG slice (%s of a %s, up to %d per GPU): share the GPU instead of taking it whole", slice.Profile, trimNum(share), t.gpu.Name, slice.MaxPerGPU)}, monthly)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].MonthlySaving > out[j].MonthlySaving })
	return out
}

// smallerInstance finds the cheapest instance type of the same provider and region, at the same
// purchase option, whose GPUs hold the workload with headroom.
func (p *Pricer) smallerInstance(e *Estimate, r parser.Resource, prof *profiles.Profile, mem *memory.Estimate, th Thresholds) (Recommendation, money.Micros, bool) {
	perCopy := max(1, mem.GPUs)
	copies := 1
	if prof.Workload.Type != profiles.TypeTraining {
		copies = max(1, r.Quantity)
	}
	var best Recommendation
	var bestCost money.Micros
	found := false
	for _, in := range p.Catalog.Instances(e.Provider) {
		if in.GPUCount < 1 || float64(max(1, mem.TensorParallel)) > in.GPUCount {
			continue // tensor parallelism stays within one machine
		}
		g, ok := p.Catalog.GPU(in.GPU)
		if !ok || g.Vendor != "nvidia" || mem.PerGPUBytes > th.Tight*g.UsableGiB()*memory.GiB {
			continue
		}
		alt := r
		alt.InstanceType, alt.SpotQuantity, alt.Accelerators = in.Type, 0, nil
		if r.Pod != nil {
			if float64(perCopy) > in.GPUCount {
				continue
			}
			pod := *r.Pod
			pod.Resource, pod.Requested, pod.MIGProfile = "nvidia.com/gpu", int64(perCopy), ""
			pod.ForgetNodeChoice()
			alt.Pod = &pod
		} else {
			// Pack whole copies into instances: a copy spanning more GPUs than an instance has
			// takes several (training across nodes); smaller copies share an instance.
			if float64(perCopy) <= in.GPUCount {
				perInstance := int(in.GPUCount) / perCopy
				alt.Quantity = (copies + perInstance - 1) / perInstance
			} else {
				alt.Quantity = copies * int(math.Ceil(float64(perCopy)/in.GPUCount))
			}
		}
		if in.Type == e.InstanceType && alt.Quantity == r.Quantity {
			continue
		}
		est := p.Estimate(alt)
		m, ok := est.Monthly()
		if !ok {
			continue
		}
		if !found || m < bestCost || m == bestCost && in.Type < best.InstanceType {
			best = Recommendation{Kind: RecSmallerInstance, InstanceType: in.Type, PurchaseOption: string(r.PurchaseOption), PriceEstimated: est.PriceEstimated,
				Reason: fmt.Sprintf("%d× %s holds the workload (%.1f GiB of %.1f GiB per GPU)", alt.Quantity, in.Type, mem.PerGPUBytes/memory.GiB, g.UsableGiB())}
			if r.Pod != nil {
				best.Reason = fmt.Sprintf("%s nodes hold the pods (%.1f GiB of %.1f GiB per GPU, %d GPU%s per pod)", in.Type, mem.PerGPUBytes/memory.GiB, g.UsableGiB(), perCopy, plural(perCopy))
			}
			bestCost, found = m, true
		}
	}
	return best, bestCost, found
}

// gpusPaid is how many whole GPUs the resource's cost pays for, and how many copies of the
// workload run on them (a pod replica, or one serving replica per instance).
func (p *Pricer) gpusPaid(e *Estimate, r parser.Resource) (paid, copies float64) {
	if r.Pod != nil {
		return float64(r.Quantity) * r.Pod.PerPodGPUs, float64(r.Quantity)
	}
	in, ok := p.instance(e.Provider, e.InstanceType)
	if !ok {
		return 0, 0
	}
	return in.GPUCount * float64(r.Quantity), float64(r.Quantity)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
