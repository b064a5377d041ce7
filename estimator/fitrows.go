package estimator

import (
	"fmt"
	"math"
	"sort"

	"github.com/gpuguard/gpuguard/estimator/memory"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/profiles"
)

// InstanceFit is one row of `gpuguard fit`: how a workload fares on an instance type.
type InstanceFit struct {
	InstanceType       string        `json:"instance_type"`
	Provider           string        `json:"provider"`
	Region             string        `json:"region"`
	GPU                string        `json:"gpu,omitempty"`
	GPUsPerInstance    float64       `json:"gpus_per_instance"`
	Verdict            string        `json:"verdict"`
	AvailableGiBPerGPU *float64      `json:"available_gib_per_gpu"`
	MemoryUtilization  *float64      `json:"memory_utilization"`
	InstancesNeeded    int           `json:"instances_needed"`
	MonthlyCost        *money.Amount `json:"monthly_cost"`
	PriceEstimated     bool          `json:"price_estimated"`
	Reason             string        `json:"reason,omitempty"`
	MIGSlice           string        `json:"mig_slice,omitempty"`
}

// FitInstances judges a workload on instance types: the named ones, or every GPU type of the
// provider priced in the region. Each row's cost is for one copy of the workload (the instances
// its GPUs need), at the purchase option, for the default month.
func (p *Pricer) FitInstances(prof *profiles.Profile, mem *memory.Estimate, types []string, provider, region string, opt parser.PurchaseOption, th Thresholds) []InstanceFit {
	if len(types) == 0 {
		for _, in := range p.Catalog.Instances(provider) {
			if g, _ := p.Catalog.GPU(in.GPU); g.Vendor != "nvidia" {
				continue // the memory model is for CUDA workloads; Neuron and ROCm types are named explicitly
			}
			if _, miss := p.Catalog.Quote(provider, in.Type, region, parser.OnDemand); miss == nil {
				types = append(types, in.Type)
			}
		}
	}
	var rows []InstanceFit
	for _, typ := range types {
		prov := provider
		if prov == "" || prov == parser.Unknown {
			prov = parser.ProviderOfInstanceType(typ)
		}
		row := InstanceFit{InstanceType: typ, Provider: prov, Region: parser.NormalizeRegion(region), Verdict: VerdictUnknown}
		in, ok := p.instance(prov, typ)
		if !ok || in.GPU == "" {
			row.Reason = fmt.Sprintf("%s is not a GPU type in the catalog", typ)
			rows = append(rows, row)
			continue
		}
		g, _ := p.Catalog.GPU(in.GPU)
		row.GPU, row.GPUsPerInstance = g.Name, in.GPUCount
		if g.Vendor != "nvidia" {
			row.Reason = fmt.Sprintf("%s runs models compiled for it (Neuron SDK, ROCm); the memory model is for CUDA GPUs", g.Name)
			rows = append(rows, row)
			continue
		}
		need := max(1, mem.GPUs)
		t := instanceTarget(in, g)
		switch {
		case t.slice && need > 1:
			row.Verdict = VerdictDoesNotFit
			row.Reason = fmt.Sprintf("the workload spans %d GPUs; %s is a slice of one (%s)", need, typ, t.name)
			rows = append(rows, row)
			continue
		case float64(max(1, mem.TensorParallel)) > t.gpus:
			row.Verdict = VerdictDoesNotFit
			row.Reason = fmt.Sprintf("tensor parallel %d needs %d GPUs in one machine; %s has %s", mem.TensorParallel, mem.TensorParallel, typ, trimNum(in.GPUCount))
			rows = append(rows, row)
			continue
		}
		row.InstancesNeeded = int(math.Ceil(float64(need) / t.gpus))
		t.gpus *= float64(row.InstancesNeeded)
		var util *float64
		if m := prof.Measured; m != nil && m.GPUUtilization != nil {
			util = &m.GPUUtilization.Mean
		}
		f := judge(mem, t, util, th)
		row.Verdict, row.AvailableGiBPerGPU, row.MemoryUtilization, row.Reason = f.Verdict, f.AvailableGiBPerGPU, f.MemoryUtilization, f.Reason
		if prof.Workload.Type != profiles.TypeTraining && !t.slice {
			if s, ok := migSlice(mem, g, th); ok {
				row.MIGSlice = s.Profile
			}
		}
		est := p.Estimate(parser.Resource{Provider: prov, Region: region, InstanceType: typ, Quantity: row.InstancesNeeded, PurchaseOption: opt, Kind: parser.KindTerraform})
		if est.MonthlyCost != nil {
			row.MonthlyCost, row.PriceEstimated = est.MonthlyCost, est.PriceEstimated
		} else if row.Reason == "" {
			row.Reason = *est.UnpricedReason
		}
		rows = append(rows, row)
	}
	rank := map[string]int{VerdictFits: 0, VerdictOversized: 1, VerdictTight: 2, VerdictDoesNotFit: 3, VerdictUnknown: 4}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if rank[a.Verdict] != rank[b.Verdict] {
			return rank[a.Verdict] < rank[b.Verdict]
		}
		if (a.MonthlyCost == nil) != (b.MonthlyCost == nil) {
			return a.MonthlyCost != nil
		}
		if a.MonthlyCost != nil && *a.MonthlyCost != *b.MonthlyCost {
			return *a.MonthlyCost < *b.MonthlyCost
		}
		return a.InstanceType < b.InstanceType
	})
	return rows
}

// Breakdown exposes an estimate's terms in GiB for reports.
func Breakdown(mem *memory.Estimate) []MemoryTerm { return breakdown(mem) }
