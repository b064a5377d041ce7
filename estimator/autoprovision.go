package estimator

import (
	"fmt"

	"github.com/gpuguard/gpuguard/parser"
)

// resolveAutoProvision gives GPU capacity that an autoscaler provisions itself
// (parser.AutoProvision: GKE node auto-provisioning's limit on one GPU type) the machine a pod
// asking for one such GPU would get: the cheapest whole node in the resource's region that
// holds one (chooseNode, as for a pod that selects the GPU by its label). The autoscaler sizes
// each node to the pods waiting, so a larger machine may cost more per GPU: that machine is
// the least the capacity costs per GPU. Its maximum is the limit's GPUs in those nodes. When no
// machine qualifies, the resource stays unresolved and says why.
func (p *Pricer) resolveAutoProvision(r *parser.Resource) {
	a := r.AutoProvision
	if a == nil {
		return
	}
	region := p.region(r)
	probe := parser.Resource{Provider: r.Provider, Region: region, Quantity: 1, PurchaseOption: r.PurchaseOption, RegionUnknown: r.RegionUnknown,
		Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{a.Accelerator}}}
	if why := p.chooseNode(&probe, &Estimate{Region: region}); why != "" {
		r.AddUnresolved("machine_type", fmt.Sprintf("the autoscaler picks the machine of each %s node, and none is priced: %s", a.Accelerator, why))
		return
	}
	r.InstanceType, r.Accelerators = probe.InstanceType, probe.Accelerators
	_, gpus, _ := p.nodeGPUs(r)
	per := int(gpus)
	machine := r.InstanceType
	if len(r.Accelerators) > 0 {
		machine = fmt.Sprintf("%s with %d× %s attached", r.InstanceType, r.Accelerators[0].Count, a.Accelerator)
	}
	r.Note("priced on %s, the cheapest machine with %s in %s: the autoscaler sizes each node to the pods that wait, and larger machines cost more per GPU", machine, a.Accelerator, region)
	if a.MaxUnknown || per <= 0 {
		r.ScaleMaxUnknown = a.MaxUnknown
		return
	}
	nodes := a.MaxGPUs / per
	if nodes == 0 {
		r.Note("its maximum of %d GPUs is less than the %d of one %s: the autoscaler can add none", a.MaxGPUs, per, r.InstanceType)
		return
	}
	r.SetScaleMax(nodes, fmt.Sprintf("%s (%d GPUs, %d a node)", a.From, a.MaxGPUs, per))
}
