package estimator

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// chooseByRequirements settles the instance type of a group that chooses its types by
// attributes (EC2 instance_requirements): the cheapest catalog type that meets them, in the
// region and for the purchase option — what EC2's lowest-price allocation launches. It is an
// estimate and says so; it returns why no type could be chosen, or "".
func (p *Pricer) chooseByRequirements(r *parser.Resource, e *Estimate) string {
	if e.Region == "" {
		return noRegion(r)
	}
	req := r.Requirements
	type cand struct {
		in   catalog.Instance
		cost money.Micros
	}
	var cands []cand
	for _, in := range p.Catalog.Instances(r.Provider) {
		if !p.meets(in, req) {
			continue
		}
		q, miss := p.Catalog.Quote(r.Provider, in.Type, e.Region, r.PurchaseOption)
		if miss != nil {
			continue
		}
		cands = append(cands, cand{in, q.Hourly})
	}
	if len(cands) == 0 {
		return fmt.Sprintf("no %s catalog type in region %s meets the instance_requirements", r.Provider, orName(e.Region, "(none)"))
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].cost != cands[j].cost {
			return cands[i].cost < cands[j].cost
		}
		return cands[i].in.Type < cands[j].in.Type
	})
	r.InstanceType, e.InstanceType = cands[0].in.Type, cands[0].in.Type
	e.PriceEstimated = true
	addNote(e, fmt.Sprintf("instance type estimated: %s is the cheapest of %d catalog types that meet the instance_requirements", cands[0].in.Type, len(cands)))
	return ""
}

// meets checks a catalog type against instance requirements. Accelerator names and makers are
// EC2's (a100, t4, nvidia, amazon-web-services); memory ranges are in MiB.
func (p *Pricer) meets(in catalog.Instance, req *parser.InstanceRequirements) bool {
	g, hasGPU := p.Catalog.GPU(in.GPU)
	if in.GPUCount < 1 || !hasGPU {
		return false
	}
	if req.GPUs != nil && !req.GPUs.Allows(in.GPUCount) {
		return false
	}
	if req.VCPUs != nil && (in.VCPU == 0 || !req.VCPUs.Allows(float64(in.VCPU))) {
		return false
	}
	if req.MemoryMiB != nil && (in.MemoryGiB == 0 || !req.MemoryMiB.AllowsWithin(in.MemoryGiB*1024, 0.03)) {
		return false
	}
	if req.GPUMemoryMiB != nil && !req.GPUMemoryMiB.AllowsWithin(in.GPUMemoryGiB*in.GPUCount*1024, 0.03) {
		return false
	}
	if len(req.GPUNames) > 0 {
		ok := false
		for _, n := range req.GPUNames {
			for _, k := range catalog.GPUKeysForName(n) {
				ok = ok || k == in.GPU
			}
		}
		if !ok {
			return false
		}
	}
	if len(req.Manufacturers) > 0 {
		ok := false
		for _, m := range req.Manufacturers {
			ok = ok || ec2Maker(m) == g.Vendor
		}
		if !ok {
			return false
		}
	}
	if len(req.Types) > 0 {
		ok := false
		for _, t := range req.Types {
			switch strings.ToLower(t) {
			case "gpu":
				ok = ok || g.Vendor == "nvidia" || g.Vendor == "amd"
			case "inference":
				ok = ok || g.Vendor == "aws"
			}
		}
		if !ok {
			return false
		}
	}
	if len(req.Allowed) > 0 && !matchesAny(in.Type, req.Allowed) || matchesAny(in.Type, req.Excluded) {
		return false
	}
	return true
}

// ec2Maker maps EC2's accelerator manufacturer names to the catalog's GPU vendors.
func ec2Maker(m string) string {
	switch strings.ToLower(m) {
	case "amazon-web-services":
		return "aws"
	}
	return strings.ToLower(m)
}

// matchesAny matches an instance type against EC2's patterns (g5.*, p4d.24xlarge, g*).
func matchesAny(t string, patterns []string) bool {
	for _, p := range patterns {
		if ok, err := path.Match(p, t); err == nil && ok {
			return true
		}
	}
	return false
}
