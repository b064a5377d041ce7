package estimator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// GCP's T4, V100, P100 and P4 come attached to N1 VMs, not in machine types of their own: a GKE
// node with them is an N1 VM plus its accelerators, priced together (the VM from the catalog's
// N1 rows, each GPU at its accelerator price). A pod that names such a GPU gets a node sized
// for it: the smallest GPU count an N1 VM takes that holds the pod's GPUs, on the cheapest N1
// type that count allows whose allocatable CPU and memory hold the pod's requests.

// attachedNode is an N1 VM with GPUs attached, chosen for a pod.
type attachedNode struct {
	vm, acc catalog.Instance
	count   int
	hourly  money.Micros // the VM and its GPUs, an hour
	// forced is set when the pod's CPU or memory needed a larger VM than the smallest GPU count
	// allows, and so more GPUs than the pod uses.
	forced bool
}

// attachedGPU reports whether GCP sells a catalog accelerator type only attached to N1 VMs.
func attachedGPU(in catalog.Instance) bool {
	return in.Kind == catalog.KindAccelerator && len(catalog.AttachLimits(in.Type)) > 0
}

// attachNode sizes an N1 node with GPUs of acc for the pod among the VM types vms, in the
// estimate's region and at the resource's purchase option: for all the pods that must share
// one node (Together), when more than one must. It returns why none qualifies.
func (p *Pricer) attachNode(r *parser.Resource, e *Estimate, acc catalog.Instance, vms []catalog.Instance) (attachedNode, string) {
	pod := r.Pod
	share, reason := p.perPodGPUs(pod, acc, &Estimate{})
	if reason != "" {
		return attachedNode{}, reason
	}
	accQ, miss := p.Catalog.Quote(r.Provider, acc.Type, e.Region, r.PurchaseOption)
	if miss != nil {
		return attachedNode{}, miss.Reason
	}
	first := true
	for _, lim := range catalog.AttachLimits(acc.Type) {
		if !limitHolds(lim, share, pod) {
			continue
		}
		var best attachedNode
		found := false
		for _, vm := range vms {
			if !vmHolds(vm, lim, pod) || pod.Together > 1 && podsFit(vm, share/float64(lim.GPUs), pod) < pod.Together {
				continue
			}
			q, miss := p.Catalog.Quote(r.Provider, vm.Type, e.Region, r.PurchaseOption)
			if miss != nil {
				continue
			}
			hourly := q.Hourly + accQ.Hourly.MulInt(int64(lim.GPUs))
			if !found || hourly < best.hourly || hourly == best.hourly && vm.Type < best.vm.Type {
				best, found = attachedNode{vm: vm, acc: acc, count: lim.GPUs, hourly: hourly, forced: !first && pod.Together <= 1}, true
			}
		}
		if found {
			return best, ""
		}
		first = false
	}
	limits := catalog.AttachLimits(acc.Type)
	if most := limits[len(limits)-1].GPUs; share > float64(most)+1e-9 {
		return attachedNode{}, fmt.Sprintf("GCP attaches at most %d %s GPUs to a VM; a pod requests %s", most, acc.Type, trimNum(share))
	}
	if len(vms) == 1 {
		cpu, mem := gkeAllocatable(vms[0].VCPU, vms[0].MemoryGiB)
		return attachedNode{}, fmt.Sprintf("%s cannot hold a pod that requests %s: GKE leaves %.2f CPUs and %.1f GiB of it allocatable", vms[0].Type, podAsk(share, pod), cpu, mem)
	}
	return attachedNode{}, fmt.Sprintf("no N1 machine type with %s attached holds a pod that requests %s (GCP limits the VM size for each GPU count)", acc.Type, podAsk(share, pod))
}

// limitHolds reports whether the GPU count of one of GCP's attach limits holds a pod's share
// and is one the pod's labels allow.
func limitHolds(lim catalog.AttachLimit, share float64, pod *parser.PodGPUs) bool {
	return float64(lim.GPUs)+1e-9 >= share && (pod.NodeGPUs == nil || pod.NodeGPUs.Allows(float64(lim.GPUs)))
}

// vmHolds reports whether an N1 VM takes that many GPUs (GCP limits its size for each count)
// and leaves the pod's CPU and memory allocatable.
func vmHolds(vm catalog.Instance, lim catalog.AttachLimit, pod *parser.PodGPUs) bool {
	if vm.VCPU > lim.MaxVCPUs || vm.MemoryGiB > lim.MaxMemoryGiB {
		return false
	}
	cpu, mem := gkeAllocatable(vm.VCPU, vm.MemoryGiB)
	return cpu+1e-9 >= pod.CPU && mem+1e-9 >= pod.MemoryGiB
}

// podAsk writes what a pod requests of a node: "1 GPU, 8 CPUs and 20 GiB".
func podAsk(gpus float64, pod *parser.PodGPUs) string {
	parts := []string{trimNum(gpus) + " GPU"}
	if gpus != 1 {
		parts[0] += "s"
	}
	if pod.CPU > 0 {
		parts = append(parts, trimNum(pod.CPU)+" CPUs")
	}
	if pod.MemoryGiB > 0 {
		parts = append(parts, trimNum(pod.MemoryGiB)+" GiB")
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// n1Types lists the catalog's N1 VM types a pod's labels allow (named types, machine family).
func (p *Pricer) n1Types(pod *parser.PodGPUs) []catalog.Instance {
	var out []catalog.Instance
	for _, vm := range p.Catalog.AllInstances(parser.GCP) {
		if vm.Kind != catalog.KindVM || !strings.HasPrefix(vm.Type, "n1-") {
			continue
		}
		if len(pod.InstanceTypes) > 0 && !containsFold(pod.InstanceTypes, vm.Type) || p.excludes(parser.GCP, vm, pod.Excluded) {
			continue
		}
		ok := len(pod.Families) == 0
		for _, f := range pod.Families {
			ok = ok || strings.HasPrefix(vm.Type, f+"-")
		}
		if ok {
			out = append(out, vm)
		}
	}
	return out
}

// attachesGPUs reports whether the pod's constraints can be met by an N1 VM with attached GPUs
// at all: an Azure GPU name rules it out, and a category or generation (Karpenter's GCP
// provider's) must allow N1's, n and 1.
func attachesGPUs(pod *parser.PodGPUs) bool {
	return (len(pod.Categories) == 0 || slices.Contains(pod.Categories, "n")) && (pod.Generations == nil || pod.Generations.Allows(1)) &&
		len(pod.AzureGPUNames) == 0
}

// attach records the chosen node on the resource: its type is the VM, its GPUs attached.
// named is set when the pod's labels named the VM type: only the GPU count was chosen.
func (n attachedNode) attach(r *parser.Resource, e *Estimate, named bool) {
	r.InstanceType, e.InstanceType = n.vm.Type, n.vm.Type
	r.Accelerators = []parser.Accelerator{{Type: n.acc.Type, Count: n.count}}
	e.attached = r.Accelerators
	e.PriceEstimated = true
	pod := r.Pod
	what := fmt.Sprintf("%s with %d× %s attached", n.vm.Type, n.count, n.acc.Type)
	switch {
	case named:
		addNote(e, fmt.Sprintf("GKE node: %s, the fewest GPUs of the pod's accelerator that an N1 VM of that size takes and that hold the pod's (the node pool's own GPU count is not in the manifests: an estimate)", what))
	case pod.CPU > 0 || pod.MemoryGiB > 0:
		addNote(e, fmt.Sprintf("GKE node: %s, the cheapest N1 size whose allocatable CPU and memory (after GKE's reservations) hold the pod's %s CPUs and %s GiB", what, trimNum(pod.CPU), trimNum(pod.MemoryGiB)))
	default:
		addNote(e, fmt.Sprintf("GKE node: %s, the cheapest N1 size for that GPU count (the pod requests no CPU or memory: a lower bound)", what))
	}
	if n.forced {
		addNote(e, fmt.Sprintf("an N1 VM large enough for the pod's CPU and memory takes at least %d GPUs: those the pod does not use stay idle unless other pods fit beside it", n.count))
	}
}

// nodeGPUs is the catalog entry of a resource's GPUs (model, memory) and how many its node has:
// an instance type's own, or the accelerators attached to a VM. ok is false when the node has
// none the catalog knows.
func (p *Pricer) nodeGPUs(r *parser.Resource) (gpu catalog.Instance, count float64, ok bool) {
	in, ok := p.Catalog.Instance(r.Provider, r.InstanceType)
	if !ok {
		return catalog.Instance{}, 0, false
	}
	if in.GPUCount > 0 || len(r.Accelerators) == 0 {
		return in, in.GPUCount, in.GPUCount > 0
	}
	for _, a := range r.Accelerators {
		acc, found := p.Catalog.Instance(r.Provider, a.Type)
		if !found || acc.GPU == "" {
			return catalog.Instance{}, 0, false
		}
		gpu = acc
		count += float64(a.Count) * acc.GPUCount
	}
	return gpu, count, count > 0
}

// gkeAllocatable is what a GKE node of vcpus and memGiB leaves to pods after GKE's reservations
// for the system and the kubelet's eviction threshold ("Plan GKE Standard node sizes", memory
// and CPU reservations, https://cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes):
// CPU: 6 % of the first core, 1 % of the next, 0.5 % of the next two, 0.25 % of the rest.
// Memory: 255 MiB on machines under 1 GiB; else 25 % of the first 4 GiB, 20 % of the next 4,
// 10 % of the next 8, 6 % of the next 112 and 2 % of the rest; and 100 MiB for eviction.
func gkeAllocatable(vcpus int, memGiB float64) (cpu, mem float64) {
	c := float64(vcpus)
	cpuReserved := tiers(c, []tier{{1, 0.06}, {1, 0.01}, {2, 0.005}, {0, 0.0025}})
	memReserved := 255.0 / 1024
	if memGiB >= 1 {
		memReserved = tiers(memGiB, []tier{{4, 0.25}, {4, 0.20}, {8, 0.10}, {112, 0.06}, {0, 0.02}})
	}
	return c - cpuReserved, memGiB - memReserved - 100.0/1024
}

// tier is a band of a tiered reservation: size units (0: the rest) reserved at rate.
type tier struct{ size, rate float64 }

func tiers(x float64, bands []tier) float64 {
	total := 0.0
	for _, b := range bands {
		part := x
		if b.size > 0 && part > b.size {
			part = b.size
		}
		total += part * b.rate
		x -= part
		if x <= 0 {
			break
		}
	}
	return total
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// AttachProblem says why GCP would refuse the GPUs a resource attaches to its VM, so that
// terraform apply fails: a GPU GCP attaches to no N1 VM, a count it does not take, or a VM
// larger than that count allows. "" when the combination is valid or not GCP's N1.
func (p *Pricer) AttachProblem(r parser.Resource) string {
	if r.Provider != parser.GCP || len(r.Accelerators) == 0 || len(r.Unresolved) > 0 {
		return ""
	}
	vm, ok := p.Catalog.Instance(parser.GCP, r.InstanceType)
	if !ok || vm.Kind != catalog.KindVM {
		return "" // an unknown type is reported by pricing; accelerator-optimized types carry their GPUs
	}
	for _, a := range r.Accelerators {
		if a.Count <= 0 {
			continue
		}
		limits := catalog.AttachLimits(a.Type)
		if limits == nil {
			if acc, known := p.Catalog.Instance(parser.GCP, a.Type); known && acc.Kind == catalog.KindAccelerator {
				return fmt.Sprintf("GCP does not attach %s to N1 VMs such as %s: it comes only in its own machine types", a.Type, vm.Type)
			}
			continue
		}
		var counts []string
		for _, lim := range limits {
			counts = append(counts, fmt.Sprint(lim.GPUs))
			if lim.GPUs != a.Count {
				continue
			}
			if vm.VCPU > lim.MaxVCPUs || vm.MemoryGiB > lim.MaxMemoryGiB {
				return fmt.Sprintf("GCP refuses %s with %d× %s: with %d of them an N1 VM has at most %d vCPUs and %g GB of memory (%s has %d and %g)",
					vm.Type, a.Count, a.Type, a.Count, lim.MaxVCPUs, lim.MaxMemoryGiB, vm.Type, vm.VCPU, vm.MemoryGiB)
			}
			counts = nil
			break
		}
		if counts != nil {
			list := strings.Join(counts[:len(counts)-1], ", ") + " or " + counts[len(counts)-1]
			return fmt.Sprintf("GCP attaches %s %s GPUs to an N1 VM, not %d", list, a.Type, a.Count)
		}
	}
	return ""
}
