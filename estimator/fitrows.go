package estimator

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/estimator/memory"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/profiles"
)

// InstanceFit is one row of `gpuguard fit`: how a workload fares on an instance type.
type InstanceFit struct {
	InstanceType string `json:"instance_type"`
	// Accelerators are the GPUs attached to InstanceType when it is a GCP N1 VM.
	Accelerators       []parser.Accelerator `json:"accelerators,omitempty"`
	Provider           string               `json:"provider"`
	Region             string               `json:"region"`
	GPU                string               `json:"gpu,omitempty"`
	GPUsPerInstance    float64              `json:"gpus_per_instance"`
	Verdict            string               `json:"verdict"`
	AvailableGiBPerGPU *float64             `json:"available_gib_per_gpu"`
	MemoryUtilization  *float64             `json:"memory_utilization"`
	InstancesNeeded    int                  `json:"instances_needed"`
	MonthlyCost        *money.Amount        `json:"monthly_cost"`
	PriceEstimated     bool                 `json:"price_estimated"`
	Reason             string               `json:"reason,omitempty"`
	MIGSlice           string               `json:"mig_slice,omitempty"`
}

// FitInstances judges a workload on instance types: the named ones, or every GPU type of the
// provider priced in the region and not retired — on GCP also N1 VMs with T4, V100, P100 or P4
// GPUs attached, on the cheapest N1 type (the VM's size is the user's choice; a larger one costs more). Each row's
// cost is for one copy of the workload (the instances its GPUs need), at the purchase option,
// for the default month.
func (p *Pricer) FitInstances(prof *profiles.Profile, mem *memory.Estimate, types []string, provider, region string, opt parser.PurchaseOption, th Thresholds) []InstanceFit {
	var attached []fitCandidate
	if len(types) == 0 {
		for _, in := range p.Catalog.Instances(provider) {
			if g, _ := p.Catalog.GPU(in.GPU); g.Vendor != "nvidia" {
				continue // the memory model is for CUDA workloads; Neuron and ROCm types are named explicitly
			}
			if x, ok := catalog.Retired(provider, in.Type); ok && x.By(p.today()) {
				continue // retired: it cannot be bought (named with --type, its row says so)
			}
			if _, miss := p.Catalog.Quote(provider, in.Type, region, parser.OnDemand); miss == nil {
				types = append(types, in.Type)
			}
		}
		if provider == parser.GCP {
			attached = p.attachedCandidates(region, opt)
		}
	}
	var rows []InstanceFit
	for _, typ := range types {
		prov := provider
		if prov == "" || prov == parser.Unknown {
			prov = parser.ProviderOfInstanceType(typ)
		}
		in, ok := p.instance(prov, typ)
		if !ok || in.GPU == "" {
			rows = append(rows, InstanceFit{InstanceType: typ, Provider: prov, Region: parser.NormalizeRegion(region), Verdict: VerdictUnknown,
				Reason: fmt.Sprintf("%s is not a GPU type in the catalog", typ)})
			continue
		}
		rows = append(rows, p.fitRow(prof, mem, fitCandidate{prov: prov, typ: typ, gpus: in}, region, opt, th))
	}
	for _, c := range attached {
		rows = append(rows, p.fitRow(prof, mem, c, region, opt, th))
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

// fitCandidate is one row to judge: an instance type and the GPUs one instance gives (its own,
// or acc attached to it).
type fitCandidate struct {
	prov, typ string
	gpus      catalog.Instance
	acc       []parser.Accelerator
}

// attachedCandidates are GCP's attachable GPUs in each count an N1 VM takes, on the cheapest N1
// type priced in the region at the purchase option (every count allows it).
func (p *Pricer) attachedCandidates(region string, opt parser.PurchaseOption) []fitCandidate {
	var vm catalog.Instance
	var cheapest money.Micros
	for _, in := range p.Catalog.AllInstances(parser.GCP) {
		if in.Kind != catalog.KindVM || !strings.HasPrefix(in.Type, "n1-") {
			continue
		}
		if q, miss := p.Catalog.Quote(parser.GCP, in.Type, region, opt); miss == nil && (vm.Type == "" || q.Hourly < cheapest) {
			vm, cheapest = in, q.Hourly
		}
	}
	if vm.Type == "" {
		return nil
	}
	var out []fitCandidate
	for _, acc := range p.Catalog.AllInstances(parser.GCP) {
		if !attachedGPU(acc) {
			continue
		}
		if _, miss := p.Catalog.Quote(parser.GCP, acc.Type, region, parser.OnDemand); miss != nil {
			continue
		}
		for _, lim := range catalog.AttachLimits(acc.Type) {
			if vm.VCPU <= lim.MaxVCPUs && vm.MemoryGiB <= lim.MaxMemoryGiB {
				out = append(out, fitCandidate{prov: parser.GCP, typ: vm.Type, gpus: attachedInstance(acc, lim.GPUs), acc: []parser.Accelerator{{Type: acc.Type, Count: lim.GPUs}}})
			}
		}
	}
	return out
}

// fitRow judges the workload on one candidate and prices the instances it needs.
func (p *Pricer) fitRow(prof *profiles.Profile, mem *memory.Estimate, c fitCandidate, region string, opt parser.PurchaseOption, th Thresholds) InstanceFit {
	row := InstanceFit{InstanceType: c.typ, Accelerators: c.acc, Provider: c.prov, Region: parser.NormalizeRegion(region), Verdict: VerdictUnknown}
	in := c.gpus
	g, _ := p.Catalog.GPU(in.GPU)
	row.GPU, row.GPUsPerInstance = g.Name, in.GPUCount
	if g.Vendor != "nvidia" {
		row.Reason = fmt.Sprintf("%s runs models compiled for it (Neuron SDK, ROCm); the memory model is for CUDA GPUs", g.Name)
		return row
	}
	need := max(1, mem.GPUs)
	t := instanceTarget(in, g)
	switch {
	case t.slice && need > 1:
		row.Verdict = VerdictDoesNotFit
		row.Reason = fmt.Sprintf("the workload spans %d GPUs; %s is a slice of one (%s)", need, c.typ, t.name)
		return row
	case float64(max(1, mem.TensorParallel)) > t.gpus:
		row.Verdict = VerdictDoesNotFit
		row.Reason = fmt.Sprintf("tensor parallel %d needs %d GPUs in one machine; %s has %s", mem.TensorParallel, mem.TensorParallel, c.typ, trimNum(in.GPUCount))
		return row
	}
	row.InstancesNeeded = int(math.Ceil(float64(need) / t.gpus))
	t.gpus *= float64(row.InstancesNeeded)
	var util *float64
	if m := prof.Measured; m != nil && m.GPUUtilization != nil {
		util = &m.GPUUtilization.Mean
	}
	f := judge(mem, t, util, th)
	row.Verdict, row.AvailableGiBPerGPU, row.MemoryUtilization, row.Reason = f.Verdict, f.AvailableGiBPerGPU, f.MemoryUtilization, f.Reason
	if mem.Measured && nearTheLine(f) {
		if on, target := p.otherArchitecture(prof, g); on != "" {
			row.Reason = strings.TrimPrefix(row.Reason+"; "+fmt.Sprintf("measured on %s, not %s", on, target), "; ")
		}
	}
	if prof.Workload.Type != profiles.TypeTraining && !t.slice {
		if s, ok := migSlice(mem, g, th); ok {
			row.MIGSlice = s.Profile
		}
	}
	est := p.Estimate(parser.Resource{Provider: c.prov, Region: region, InstanceType: c.typ, Accelerators: c.acc, Quantity: row.InstancesNeeded, PurchaseOption: opt, Kind: parser.KindTerraform})
	if est.MonthlyCost != nil {
		row.MonthlyCost, row.PriceEstimated = est.MonthlyCost, est.PriceEstimated
	} else if row.Reason == "" {
		row.Reason = *est.UnpricedReason
	}
	if len(c.acc) > 0 {
		row.Reason = strings.TrimPrefix(row.Reason+"; "+fmt.Sprintf("attach %d× %s (on the cheapest N1 VM; a larger one costs more)", c.acc[0].Count, c.acc[0].Type), "; ")
	}
	return row
}

// Breakdown exposes an estimate's terms in GiB for reports.
func Breakdown(mem *memory.Estimate) []MemoryTerm { return breakdown(mem) }
