package estimator

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuguard/gpuguard/estimator/catalog"
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
// all month on demand; a MIG slice when one holds it. e.Fit is the workload's fit on t.
// prof is the profile as declared or inferred; mem is its estimate on t (servedOn).
func (p *Pricer) recommend(e *Estimate, r parser.Resource, prof *profiles.Profile, mem *memory.Estimate, t gpuTarget, th Thresholds) []Recommendation {
	current, _ := e.Monthly()
	var out []Recommendation
	add := savingsInto(&out, current)
	if rec, monthly, ok := p.smallerInstance(e, r, prof, mem, t, th); ok {
		add(rec, monthly)
		if e.Fit != nil && e.Fit.Verdict == VerdictDoesNotFit && e.Fit.MPSLimitFix == nil { // a higher limit holds it for nothing
			rec.MonthlyCost, rec.MonthlySaving = money.Amount(monthly), money.Amount(current-monthly)
			rec.Kind, rec.Reason = "fits", strings.Replace(rec.Reason, "holds the workload", "holds the workload the current type cannot", 1)
			e.Fit.CheapestFit = &rec
		}
	}
	if prof.Workload.Interruptible && r.PurchaseOption != parser.Spot && !r.NoSpot {
		alt := r
		alt.PurchaseOption, alt.SpotQuantity = parser.Spot, 0
		if est := p.Estimate(alt); est.MonthlyCost != nil {
			m, _ := est.Monthly()
			add(Recommendation{Kind: RecSpot, InstanceType: e.InstanceType, PurchaseOption: string(parser.Spot), PriceEstimated: est.PriceEstimated,
				Reason: "the workload is interruptible (it checkpoints and resumes): spot capacity fits it"}, m)
		}
	}
	if !prof.Workload.Interruptible {
		p.commitments(e, r, add)
	}
	if slice, ok := findMIG(t.gpu, e.Fit.MIGSlice); ok {
		if t.mig {
			// Already on MIG slices, larger than it needs: the same GPUs in smaller slices.
			if rec, monthly, ok := p.resliced(e, r, t, slice); ok {
				add(rec, monthly)
			}
		} else if paid, copies := p.gpusPaid(e, r); paid > 0 && (r.Pod == nil || r.Pod.MaxPerNode == 0) {
			// (Pods kept one, or k, to a node pay for the node, or 1/k of it, whatever slice
			// they take.)
			// Each copy needs one GPU; on a slice it pays the slice's share of that GPU.
			share := MIGShare(t.gpu, slice)
			add(Recommendation{Kind: RecMIG, InstanceType: e.InstanceType, MIGProfile: slice.Profile, PurchaseOption: string(r.PurchaseOption), PriceEstimated: e.PriceEstimated,
				Reason: fmt.Sprintf("fits a %s MIG slice (%s of a %s, up to %d per GPU): share the GPU instead of taking it whole", slice.Profile, trimNum(share), t.gpu.Name, slice.MaxPerGPU)},
				current.Mul(share*copies/paid))
		}
	}
	if e.Fit != nil && e.Fit.Verdict == VerdictDoesNotFit && t.mig && prof.Workload.Type != profiles.TypeTraining {
		// Too little memory on its slice: a larger slice of the same GPUs may hold it for less
		// than the cheapest whole GPU that does.
		if slice, ok := migSlice(mem, t.gpu, th); ok {
			if rec, monthly, ok := p.resliced(e, r, t, slice); ok && e.Fit.MPSLimitFix == nil && (e.Fit.CheapestFit == nil || monthly < money.Micros(e.Fit.CheapestFit.MonthlyCost)) {
				rec.MonthlyCost, rec.MonthlySaving = money.Amount(monthly), money.Amount(current-monthly)
				e.Fit.CheapestFit = &rec
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].MonthlySaving > out[j].MonthlySaving })
	return out
}

// resliced prices the workload on MIG slices of another size of the GPUs it runs on now. A pod
// is priced asking for the other slice on the same node. A node group split into slices runs a
// copy on each slice (copiesPerInstance), so it needs as many instances as hold, in the other
// slices, the copies it runs now: fewer for smaller slices, more for larger ones.
func (p *Pricer) resliced(e *Estimate, r parser.Resource, t gpuTarget, to catalog.MIGProfile) (Recommendation, money.Micros, bool) {
	from := t.migProfile
	rec := Recommendation{Kind: RecMIG, InstanceType: e.InstanceType, MIGProfile: to.Profile, PurchaseOption: string(r.PurchaseOption)}
	alt := r
	var reason string
	if r.Pod != nil {
		pod := *r.Pod
		pod.Resource, pod.MIGProfile, pod.PerPodGPUs, pod.NodeShare = "nvidia.com/mig-"+to.Profile, to.Profile, 0, 0
		// The other slice is the pod's own: what shares this one says nothing of that one.
		pod.SharedReplicas, pod.SharingStrategy, pod.SharedClaims, pod.ClaimSharing = 0, "", nil, nil
		pod.ForgetNodeChoice()
		alt.Pod = &pod
		reason = fmt.Sprintf("its pods need no %s slice: a %s one (%s of a %s) holds each", from.Profile, to.Profile, trimNum(MIGShare(t.gpu, to)), t.gpu.Name)
		if t.timeSliced > 1 {
			reason = fmt.Sprintf("its pods need no share of a time-sliced %s slice: a %s one of their own (%s of a %s) holds each", from.Profile, to.Profile, trimNum(MIGShare(t.gpu, to)), t.gpu.Name)
		}
	} else {
		gpus := int(t.gpus) / from.MaxPerGPU // an instance's GPUs
		if gpus < 1 {
			return Recommendation{}, 0, false
		}
		copies := max(1, r.Quantity) * int(t.gpus)
		perInstance := gpus * to.MaxPerGPU
		alt.Quantity = (copies + perInstance - 1) / perInstance
		alt.GPUPartition, alt.SpotQuantity = to.Profile, 0
		reason = fmt.Sprintf("partitioned into %s MIG slices (%d a GPU instead of %d), %s the %d copies that %s now",
			to.Profile, to.MaxPerGPU, from.MaxPerGPU, instancesRun(alt.Quantity), copies, instancesRun(max(1, r.Quantity)))
	}
	est := p.Estimate(alt)
	monthly, ok := est.Monthly()
	if !ok {
		return Recommendation{}, 0, false
	}
	rec.PriceEstimated, rec.Reason = est.PriceEstimated, reason
	return rec, monthly, true
}

// instancesRun says n instances run: "1 instance runs", "4 instances run".
func instancesRun(n int) string {
	if n == 1 {
		return "1 instance runs"
	}
	return fmt.Sprintf("%d instances run", n)
}

// savingsInto returns the function that appends a cheaper alternative to out with its monthly
// cost and its saving against current, and drops one that saves nothing.
func savingsInto(out *[]Recommendation, current money.Micros) func(Recommendation, money.Micros) {
	return func(rec Recommendation, monthly money.Micros) {
		saving := current - monthly
		if saving <= 0 {
			return
		}
		rec.MonthlyCost, rec.MonthlySaving = money.Amount(monthly), money.Amount(saving)
		*out = append(*out, rec)
	}
}

// alwaysOn reports whether a resource runs the whole month on demand: what a 1- or 3-year
// commitment is bought for. A workload that runs to completion is priced at the full month when
// nothing says how long it runs, but that month is an upper bound, not a schedule: committing to
// it for a year could cost more than the runs it really makes.
func alwaysOn(e *Estimate, r parser.Resource, month float64) bool {
	return r.PurchaseOption == parser.OnDemand && e.HoursPerMonth >= month && !(r.RunsToCompletion && r.HoursPerMonth == 0)
}

// commitments adds the 1- and 3-year commitments that cost less than an always-on resource's
// on-demand month. Where the capacity is split between on-demand and spot instances only the
// on-demand part is committed: the spot part already costs less than any commitment would.
func (p *Pricer) commitments(e *Estimate, r parser.Resource, add func(Recommendation, money.Micros)) {
	if !alwaysOn(e, r, p.month()) || r.OwnPrice != nil {
		return // the cloud's commitments do not cover a service that bills at its own price
	}
	for _, opt := range []parser.PurchaseOption{parser.Reserved1y, parser.Reserved3y} {
		years := 1
		if opt == parser.Reserved3y {
			years = 3
		}
		if x, ok := catalog.Retired(r.Provider, e.InstanceType); ok && x.By(p.today().AddDate(years, 0, 0)) {
			continue // the type is retired before the term ends
		}
		alt := r
		alt.PurchaseOption = opt
		if est := p.Estimate(alt); est.MonthlyCost != nil {
			m, _ := est.Monthly()
			term := "1-year"
			if opt == parser.Reserved3y {
				term = "3-year"
			}
			reason := fmt.Sprintf("runs all month on demand: a %s commitment costs less", term)
			if sageMakerType(r.Provider, e.InstanceType) {
				// EC2's reservations do not cover SageMaker; SageMaker Savings Plans do, at rates
				// the catalog lacks: EC2's commitment rate stands in (price_estimated).
				// https://aws.amazon.com/savingsplans/ml-pricing/
				reason = fmt.Sprintf("runs all month on demand: a %s SageMaker Savings Plan costs less (its rate estimated from EC2's %s commitment rate)", term, term)
			}
			if split := est.CapacitySplit; split != nil {
				od, spot := fmt.Sprintf("its %d on-demand instances run", split.OnDemand), fmt.Sprintf("the %d on spot stay", split.Spot)
				if split.OnDemand == 1 {
					od = "its one on-demand instance runs"
				}
				if split.Spot == 1 {
					spot = "the one on spot stays"
				}
				reason = fmt.Sprintf("%s all month: a %s commitment costs less (%s there)", od, term, spot)
			}
			add(Recommendation{Kind: RecCommitment, InstanceType: e.InstanceType, PurchaseOption: string(opt), PriceEstimated: est.PriceEstimated, Reason: reason}, m)
		}
	}
}

// Unprofiled lists the cheaper ways to run a priced resource that has no workload profile:
// without one, neither other GPUs nor spot capacity can be judged (the memory the workload
// needs and whether it may be interrupted are unknown), but what a commitment saves on capacity
// that runs all month on demand depends only on the prices, and so does a smaller node of the
// same GPUs for pods that keep one to a node (spreadNode). Largest saving first.
func (p *Pricer) Unprofiled(e *Estimate, r parser.Resource) []Recommendation {
	current, ok := e.Monthly()
	if !ok {
		return nil
	}
	var out []Recommendation
	add := savingsInto(&out, current)
	p.commitments(e, pricedAs(e, r), add)
	p.spreadNode(e, r, add)
	sort.SliceStable(out, func(i, j int) bool { return out[i].MonthlySaving > out[j].MonthlySaving })
	return out
}

// spreadNode adds, for pods that no two of share a node, or no more than k (MaxPerNode), on nodes with more GPUs than those pods use, the cheapest type of the same GPU
// with fewer of them that holds one pod: each pod keeps the GPUs it has, so no profile is
// needed to judge it. Pods on MIG slices, shared GPUs or shared claims are left alone.
func (p *Pricer) spreadNode(e *Estimate, r parser.Resource, add func(Recommendation, money.Micros)) {
	pod := e.Pod
	if pod == nil || pod.MaxPerNode == 0 || r.OwnPrice != nil || pod.MIGProfile != "" || pod.SharedReplicas > 0 || len(pod.SharedClaims) > 0 {
		return
	}
	k := float64(pod.MaxPerNode)
	cur, ok := p.Catalog.Instance(e.Provider, e.InstanceType)
	if !ok || pod.PerPodGPUs <= 0 || k*pod.PerPodGPUs >= cur.GPUCount-1e-9 {
		return
	}
	why := fmt.Sprintf("no two of its pods share a node, and each uses %s of %s's %s GPUs", trimNum(pod.PerPodGPUs), cur.Type, trimNum(cur.GPUCount))
	if k > 1 {
		why = fmt.Sprintf("no more than %s of its pods share a node, and they use %s of %s's %s GPUs", trimNum(k), trimNum(k*pod.PerPodGPUs), cur.Type, trimNum(cur.GPUCount))
	}
	gpuName := cur.GPU
	if g, ok := p.Catalog.GPU(cur.GPU); ok {
		gpuName = g.Name
	}
	var best Recommendation
	var bestCost money.Micros
	for _, in := range p.Catalog.Instances(e.Provider) {
		if in.GPU != cur.GPU || in.GPUCount < pod.PerPodGPUs-1e-9 || in.GPUCount >= cur.GPUCount || !holdsPod(in, pod) || !p.runsResource(in, pod.Resource) {
			continue
		}
		if pod.MaxPerNodeGroup && len(pod.Beside) == 0 && podsFit(in, pod.PerPodGPUs/in.GPUCount, pod) < pod.MaxPerNode {
			continue // a group of other roles' pods too, which must all share the node: taken to be pods like these, unless known (Beside, which the estimate below checks)
		}
		if x, ok := catalog.Retired(e.Provider, in.Type); ok && x.By(p.today()) {
			continue
		}
		alt := pricedAs(e, r)
		altPod := *pod
		altPod.NodeShare = 0
		altPod.ForgetNodeChoice()
		alt.Pod, alt.InstanceType = &altPod, in.Type
		est := p.Estimate(alt)
		m, ok := est.Monthly()
		if !ok || best.InstanceType != "" && m >= bestCost {
			continue
		}
		best, bestCost = Recommendation{Kind: RecSmallerInstance, InstanceType: in.Type, PurchaseOption: string(r.PurchaseOption), PriceEstimated: est.PriceEstimated,
			Reason: fmt.Sprintf("%s: a %s (%s× %s) holds %s", why, in.Type, trimNum(in.GPUCount), gpuName, podsHeld(in, pod))}, m
	}
	if best.InstanceType != "" {
		add(best, bestCost)
	}
}

// pricedAs is the resource as its estimate priced it: the node chosen for a pod, the default
// region. Alternatives are priced from it.
func pricedAs(e *Estimate, r parser.Resource) parser.Resource {
	r.InstanceType, r.Provider, r.Region, r.Pod = e.InstanceType, e.Provider, e.Region, e.Pod
	return r
}

// smallerInstance finds the cheapest instance type of the same provider and region, at the same
// purchase option, whose GPUs hold the workload with headroom. On GCP that includes N1 VMs with
// GPUs attached (attachedAlternatives).
// A serving workload runs perInstance copies on each instance it has now (copiesPerInstance).
func (p *Pricer) smallerInstance(e *Estimate, r parser.Resource, prof *profiles.Profile, mem *memory.Estimate, current gpuTarget, th Thresholds) (Recommendation, money.Micros, bool) {
	perInstance := copiesPerInstance(r, current)
	// need is the estimate on a candidate's GPU: a server inferred from vllm serve takes the
	// batched-token limit vLLM picks there (servedOn), which may not be the current GPU's.
	var other *memory.Estimate // on a GPU whose default differs from the current one's (vLLM has two)
	need := func(t gpuTarget) *memory.Estimate {
		q := servedOn(prof, t)
		if q.Inference == nil || servedOn(prof, current).Inference.MaxBatchedTokens == q.Inference.MaxBatchedTokens {
			return mem
		}
		if other == nil {
			var err error
			if other, err = memory.Of(q); err != nil {
				other = mem
			}
		}
		return other
	}
	perCopy := max(1, mem.GPUs)
	copies := 1
	if prof.Workload.Type != profiles.TypeTraining {
		copies = max(1, r.Quantity) * perInstance
	}
	// pack is how many instances of gpus GPUs each run the copies: a copy spanning more GPUs
	// than an instance has takes several (training across nodes); smaller copies share one.
	pack := func(gpus float64) int {
		if float64(perCopy) <= gpus {
			perInstance := int(gpus) / perCopy
			return (copies + perInstance - 1) / perInstance
		}
		return copies * int(math.Ceil(float64(perCopy)/gpus))
	}
	// holds reports whether an instance's GPUs hold one copy with headroom; a vGPU slice holds
	// a copy that needs one GPU and fits its memory.
	holds := func(in catalog.Instance) (gpuTarget, bool) {
		g, ok := p.Catalog.GPU(in.GPU)
		if !ok || g.Vendor != "nvidia" || !meetsFloor(g, r.Pod) {
			return gpuTarget{}, false
		}
		t := instanceTarget(in, g)
		// Tensor parallelism stays within one machine; a slice runs a copy on one GPU.
		if t.gpus < 1 || float64(max(1, mem.TensorParallel)) > t.gpus || t.slice && perCopy > 1 || !holdsWithHeadroom(need(t), t, th) {
			return gpuTarget{}, false
		}
		return t, true
	}
	var best Recommendation
	var bestCost money.Micros
	found := false
	consider := func(rec Recommendation, est Estimate, t gpuTarget, quantity int, note string) {
		m, ok := est.Monthly()
		if !ok || found && (m > bestCost || m == bestCost && rec.Node() >= best.Node()) {
			return
		}
		rec.Kind, rec.PurchaseOption, rec.PriceEstimated = RecSmallerInstance, string(r.PurchaseOption), est.PriceEstimated
		if r.Pod != nil {
			rec.Reason = fmt.Sprintf("%s nodes hold the pods (%.1f GiB of %.1f GiB per GPU, %d GPU%s per pod)", rec.Node(), need(t).PerGPUBytes/memory.GiB, t.usableBytes/memory.GiB, perCopy, plural(perCopy))
		} else {
			rec.Reason = fmt.Sprintf("%d× %s holds the workload (%.1f GiB of %.1f GiB per GPU)", quantity, rec.Node(), need(t).PerGPUBytes/memory.GiB, t.usableBytes/memory.GiB)
		}
		if note != "" {
			rec.Reason += "; " + note
		}
		best, bestCost, found = rec, m, true
	}
	sageMaker := sageMakerType(e.Provider, e.InstanceType)
	for _, in := range p.Catalog.Instances(e.Provider) {
		typ := in.Type
		if !offered(r, typ) {
			continue // the service that runs it does not take this type
		}
		if sageMaker {
			// A SageMaker resource takes SageMaker's ml. types only, of the families it offers.
			if !sageMakerFamilies[instanceFamily(in.Type)] {
				continue
			}
			typ = sageMakerName(in.Type)
		}
		t, ok := holds(in)
		if !ok {
			continue
		}
		alt := r
		alt.InstanceType, alt.SpotQuantity, alt.Accelerators = typ, 0, nil
		if r.Pod != nil {
			if float64(perCopy) > t.gpus {
				continue
			}
			alt.Pod = podAsking(r.Pod, perCopy)
		} else {
			alt.Quantity = pack(t.gpus)
		}
		if typ == e.InstanceType && alt.Quantity == r.Quantity {
			continue
		}
		consider(Recommendation{InstanceType: typ}, p.Estimate(alt), t, alt.Quantity, "")
	}
	if e.Provider == parser.GCP {
		for _, c := range p.attachedAlternatives(e, r, perCopy, pack, holds) {
			consider(Recommendation{InstanceType: c.est.InstanceType, Accelerators: c.accelerators}, c.est, c.target, c.quantity, c.note)
		}
	}
	return best, bestCost, found
}

// meetsFloor reports whether a GPU has the compute capability a pod's claims or labels require
// (PodGPUs.GPUComputeFloor): no cheaper type is suggested that the workload cannot run on.
func meetsFloor(g catalog.GPU, pod *parser.PodGPUs) bool {
	return pod == nil || pod.GPUComputeFloor == nil ||
		(parser.ComputeRange{Min: pod.GPUComputeFloor}).Allows(parser.Capability{Major: g.ComputeMajor, Minor: g.ComputeMinor})
}

// copiesPerInstance is how many copies of a serving workload one instance of a resource runs:
// one, or on a node group whose GPUs are split into MIG slices one per slice (the target's
// GPUs are then its slices).
func copiesPerInstance(r parser.Resource, t gpuTarget) int {
	if r.Pod != nil || !t.mig {
		return 1
	}
	return max(1, int(t.gpus))
}

// podAsking is a copy of a pod that asks for gpus whole GPUs and leaves the node to be chosen.
func podAsking(pod *parser.PodGPUs, gpus int) *parser.PodGPUs {
	alt := *pod
	alt.Resource, alt.Requested, alt.MIGProfile = "nvidia.com/gpu", int64(gpus), ""
	// On a GPU of its own: a share of another type's GPU (a device plugin's, a shared DRA
	// claim's) would need the sharers' memory to fit together, which the alternatives are not
	// judged on.
	alt.SharedReplicas, alt.SharingStrategy, alt.SharedClaims, alt.ClaimSharing = 0, "", nil, nil
	alt.ForgetNodeChoice()
	return &alt
}

// attachedAlternative is an N1 VM with GPUs attached that runs the workload, priced.
type attachedAlternative struct {
	est          Estimate
	accelerators []parser.Accelerator
	target       gpuTarget
	quantity     int
	note         string // what the reason adds: why this VM (an accelerator-optimized machine's host)
}

// n1Host is the cheapest N1 VM, in the region at the purchase option, that GCP allows with lim's
// count of GPUs and that gives each of them at least the vCPUs and memory an accelerator-optimized
// machine gives each of its GPUs (so the copies of a workload that share an N1 VM keep the host
// they had).
func (p *Pricer) n1Host(host catalog.Instance, lim catalog.AttachLimit, region string, opt parser.PurchaseOption) (catalog.Instance, bool) {
	scale := float64(lim.GPUs) / hostGPUs(host)
	cpus, mem := float64(host.VCPU)*scale, host.MemoryGiB*scale
	var best catalog.Instance
	var bestHourly money.Micros
	found := false
	for _, vm := range p.Catalog.AllInstances(parser.GCP) {
		if vm.Kind != catalog.KindVM || !strings.HasPrefix(vm.Type, "n1-") || float64(vm.VCPU)+1e-9 < cpus || vm.MemoryGiB+1e-9 < mem ||
			vm.VCPU > lim.MaxVCPUs || vm.MemoryGiB > lim.MaxMemoryGiB {
			continue
		}
		q, miss := p.Catalog.Quote(parser.GCP, vm.Type, region, opt)
		if miss != nil {
			continue
		}
		if !found || q.Hourly < bestHourly || q.Hourly == bestHourly && vm.Type < best.Type {
			best, bestHourly, found = vm, q.Hourly, true
		}
	}
	return best, found
}

// hostGPUs is how many GPUs a machine's CPUs and memory serve: a vGPU slice (a fractional G4) is
// one GPU to its workload.
func hostGPUs(in catalog.Instance) float64 {
	return max(1, in.GPUCount)
}

// attachedInstance is count GPUs of an accelerator type as one instance's GPUs.
func attachedInstance(acc catalog.Instance, count int) catalog.Instance {
	return catalog.Instance{GPU: acc.GPU, GPUCount: float64(count), GPUMemoryGiB: acc.GPUMemoryGiB}
}

// attachedAlternatives prices N1 VMs with attached GPUs (T4, V100, P100, P4) for the workload:
//   - for a pod, a node of each such GPU sized for it as chooseNode sizes one (the pod's CPU and
//     memory requests decide the VM);
//   - for an N1 VM with GPUs attached, the same VM with each count of each GPU that GCP allows on
//     a VM of its size: its CPUs and memory stay as they are;
//   - for an accelerator-optimized machine (A2, A3, G2, G4), whose CPUs and memory come with its
//     GPUs, the cheapest N1 VM that GCP allows with each count of each GPU and that gives each GPU
//     at least the vCPUs and memory the machine gives each of its own: the workload keeps its host.
func (p *Pricer) attachedAlternatives(e *Estimate, r parser.Resource, perCopy int, pack func(float64) int, holds func(catalog.Instance) (gpuTarget, bool)) []attachedAlternative {
	current := r.Accelerators  // the GPUs the resource has now: not offered again
	var host *catalog.Instance // an accelerator-optimized machine whose CPUs and memory an N1 VM must match
	if r.Pod != nil {
		current = e.attached
	} else if in, ok := p.Catalog.Instance(parser.GCP, r.InstanceType); !ok {
		return nil
	} else if in.Kind != catalog.KindVM {
		if in.VCPU <= 0 || in.MemoryGiB <= 0 {
			return nil
		}
		host = &in
	} else if len(r.Accelerators) == 0 {
		return nil
	}
	var out []attachedAlternative
	for _, acc := range p.Catalog.AllInstances(parser.GCP) {
		if !attachedGPU(acc) {
			continue
		}
		limits := catalog.AttachLimits(acc.Type)
		t, ok := holds(attachedInstance(acc, limits[len(limits)-1].GPUs))
		if !ok {
			continue
		}
		if r.Pod != nil {
			if perCopy > limits[len(limits)-1].GPUs {
				continue
			}
			alt := r
			alt.InstanceType, alt.SpotQuantity, alt.Accelerators = "", 0, nil
			alt.Pod = podAsking(r.Pod, perCopy)
			alt.Pod.GPUNames = []string{acc.Type}
			est := p.Estimate(alt)
			if est.MonthlyCost == nil || est.InstanceType == e.InstanceType && slices.Equal(est.attached, current) {
				continue
			}
			out = append(out, attachedAlternative{est: est, accelerators: est.attached, target: t, quantity: alt.Quantity})
			continue
		}
		for _, lim := range limits {
			if _, ok := holds(attachedInstance(acc, lim.GPUs)); !ok {
				continue
			}
			alt := r
			alt.SpotQuantity = 0
			alt.Accelerators = []parser.Accelerator{{Type: acc.Type, Count: lim.GPUs}}
			alt.Quantity = pack(float64(lim.GPUs))
			note := ""
			if host != nil {
				vm, ok := p.n1Host(*host, lim, e.Region, r.PurchaseOption)
				if !ok {
					continue
				}
				alt.InstanceType = vm.Type
				g := hostGPUs(*host)
				note = fmt.Sprintf("%s gives each GPU at least the %s vCPUs and %s GB %s does", vm.Type, trimNum(float64(host.VCPU)/g), trimNum(host.MemoryGiB/g), host.Type)
			}
			if alt.Quantity == r.Quantity && slices.Equal(alt.Accelerators, current) || p.AttachProblem(alt) != "" {
				continue // the same node, or one GCP refuses (too large a VM for that count)
			}
			if est := p.Estimate(alt); est.MonthlyCost != nil {
				out = append(out, attachedAlternative{est: est, accelerators: alt.Accelerators, target: t, quantity: alt.Quantity, note: note})
			}
		}
	}
	return out
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

// podsHeld says how many pods of a workload capped per node a node of type in holds: as many as
// its GPUs, CPUs and memory take, up to the cap.
func podsHeld(in catalog.Instance, pod *parser.PodGPUs) string {
	n := podsFit(in, pod.PerPodGPUs/in.GPUCount, pod)
	if n <= 1 {
		return "one"
	}
	return strconv.Itoa(n)
}
