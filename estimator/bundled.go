package estimator

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// bundledMachines lists the catalog's GCP machine types that come with count GPUs of the
// accelerator type built in, smallest first; none when the type is not one that only comes built in.
func bundledMachines(cat *catalog.Catalog, accelerator string, count int) []string {
	series := parser.GCPBuiltInSeries(accelerator)
	var out []string
	for _, in := range cat.Instances(parser.GCP) {
		if in.GPUCount != float64(count) {
			continue
		}
		for _, s := range series {
			if strings.HasPrefix(in.Type, s) {
				out = append(out, in.Type)
			}
		}
	}
	// Shorter names first: g2-standard-4 before g2-standard-12, as the sizes grow.
	slices.SortFunc(out, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b)) })
	return out
}

// unknownMachineType returns the GCP machine type attribute of r that is known only at apply,
// and the one accelerator block r declares, when that is all that stands between r and a price.
func unknownMachineType(r *parser.Resource) (parser.Unresolved, parser.Accelerator, bool) {
	if r.Provider != parser.GCP || r.InstanceType != "" || r.Pod != nil || len(r.Unresolved) != 1 || len(r.Accelerators) != 1 {
		return parser.Unresolved{}, parser.Accelerator{}, false
	}
	u := r.Unresolved[0]
	if u.Attribute != "machine_type" && !strings.HasSuffix(u.Attribute, ".machine_type") {
		return parser.Unresolved{}, parser.Accelerator{}, false
	}
	if u.Reason == parser.ReasonNotSet || u.Reason == parser.ReasonEmpty {
		return parser.Unresolved{}, parser.Accelerator{}, false // GCP's default machine takes none of these GPUs
	}
	return u, r.Accelerators[0], true
}

// resolveBundledMachine fills in a GCP resource's machine type when it is known only at apply
// (a variable without a value) but its guest_accelerator names GPUs that exactly one machine type
// carries built in: 8× nvidia-h100-mega-80gb is an a3-megagpu-8g, whatever the variable says,
// since GCP refuses any other machine with that block. A note says so. With several candidates
// (1× nvidia-l4 comes with five G2 types) the resource stays unresolved, and its unpriced reason
// names the candidates and what they cost (bundledRange).
func (p *Pricer) resolveBundledMachine(r *parser.Resource) {
	u, acc, ok := unknownMachineType(r)
	if !ok {
		return
	}
	types := bundledMachines(p.Catalog, acc.Type, acc.Count)
	if len(types) != 1 {
		return
	}
	r.InstanceType, r.Unresolved, r.Accelerators = types[0], nil, nil
	r.Note("%s is known only at apply (%s): %d× %s comes built into %s alone, which prices it", u.Attribute, u.Reason, acc.Count, acc.Type, types[0])
}

// bundledRange says, of a resource whose machine type is known only at apply but whose GPUs
// come built into a few machine types, which those are and what they would cost here; "" when
// that does not apply or none is priced in the resource's region.
func (p *Pricer) bundledRange(r *parser.Resource, e *Estimate) string {
	_, acc, ok := unknownMachineType(r)
	if !ok {
		return ""
	}
	types := bundledMachines(p.Catalog, acc.Type, acc.Count)
	if len(types) < 2 {
		return ""
	}
	var lo, hi string
	var cheapest, dearest money.Micros
	who := "it"
	for _, t := range types {
		alt := *r
		alt.InstanceType, alt.Unresolved, alt.Accelerators, alt.Notes = t, nil, nil, nil
		alt.Region = e.Region // the default region's, when the resource names none
		w, m, ok := p.costWith(alt, p.Catalog)
		if !ok {
			continue
		}
		who = w
		if lo == "" || m < cheapest {
			lo, cheapest = t, m
		}
		if hi == "" || m > dearest {
			hi, dearest = t, m
		}
	}
	if lo == "" {
		return ""
	}
	return fmt.Sprintf("%d× %s comes built into %s: in %s %s would cost from %s/month (%s) to %s/month (%s)", acc.Count, acc.Type,
		strings.Join(types, ", "), e.Region, who, cheapest, lo, dearest, hi)
}
