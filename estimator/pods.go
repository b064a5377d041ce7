package estimator

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// preparePod settles what a Kubernetes pod's price needs: the node type (choosing the cheapest
// catalog type that holds the pod's GPUs when the manifest only names a family, a GPU or several
// types) and the share of that node's GPUs one pod pays for. It returns why the pod cannot be
// priced, or "".
func (p *Pricer) preparePod(r *parser.Resource, e *Estimate) string {
	pod := *r.Pod
	pod.NodeShare = 0 // set below, from the node this estimate settles on
	r.Pod = &pod
	e.Pod = &pod
	if r.RunsToCompletion && r.HoursPerMonth == 0 && r.RunHours == 0 {
		addNote(e, "runs to completion, but nothing says for how long: priced at the full month; set the gpuguard.dev/hours-per-month annotation or usage in the config")
	}
	if len(r.Unresolved) > 0 {
		return ""
	}
	if r.Provider == parser.Unknown || r.Provider == "" {
		r.Provider = parser.ProviderOfRegion(e.Region)
		e.Provider = r.Provider
	}
	if r.InstanceType == "" && pod.ChoosesNode() {
		if reason := p.chooseNode(r, e); reason != "" {
			return reason
		}
	}
	in, ok := p.Catalog.Instance(r.Provider, r.InstanceType)
	if !ok {
		return "" // the price lookup reports the unknown type
	}
	if in.Kind == catalog.KindVM && len(r.Accelerators) == 0 && len(pod.GPUNames) > 0 {
		if reason := p.attachToNamedVM(r, e, in); reason != "" {
			return reason
		}
	}
	gpu, count, _ := p.nodeGPUs(r)
	share, reason := p.perPodGPUs(&pod, gpu, e)
	if reason != "" {
		return reason
	}
	pod.PerPodGPUs = share
	if g, ok := p.Catalog.GPU(gpu.GPU); ok && pod.MIGProfile != "" {
		if m, ok := partitionSlice(g, pod.MIGProfile); ok {
			pod.MIGProfile = m.Profile // AKS's MIG1g is an A100 80GB's 1g.10gb
		}
	}
	if count == 0 && in.Kind == catalog.KindVM {
		return fmt.Sprintf("%s has no GPUs of its own: GKE attaches them to N1 VMs; name the GPU with the cloud.google.com/gke-accelerator label", in.Type)
	}
	gpuCount := count // of the GPU model, for the pod's GPU info: a slice is part of one
	count = devices(count)
	// The node's GPU is known from here: a pod it cannot hold (unpriced) still names it.
	if g, ok := p.Catalog.GPU(gpu.GPU); ok {
		e.GPU = &GPUInfo{Model: g.Name, Count: share * gpuCount / count, MemoryGiB: gpu.GPUMemoryGiB, Key: g.Key, MIGProfile: pod.MIGProfile}
	}
	if need := gpusOnNode(&pod, share); need > count+1e-9 {
		return fmt.Sprintf("a pod requests %s GPUs but %s has %s: it cannot be scheduled there", trimNum(need), in.Type, trimNum(count))
	}
	if spreadByPlugin(&pod) && pod.Requested > 1 && !pod.SharedOneUnit { // else refused, below
		gpus, held := sharedSpread(int(pod.Requested), pod.SharedReplicas, int(count), pod.SharedPacked)
		how := fmt.Sprintf("spreads its %d units over %d GPU%s, at least %d of each, where the node has them free (its default policy, distributed: on a node whose GPUs are partly taken, more may share one)", pod.Requested, gpus, plural(gpus), held)
		if pod.SharedPacked {
			how = fmt.Sprintf("packs its %d units onto %d GPU%s (sharedDevicesAllocationPolicy: packed), at least %d of each", pod.Requested, gpus, plural(gpus), held)
		}
		addNote(e, "the pod asks for more than one unit of a shared GPU: NVIDIA's device plugin "+how)
	}
	if !holdsPod(in, &pod) {
		reserved := ""
		if in.Provider == parser.GCP {
			reserved = " (less what GKE reserves)"
		}
		return fmt.Sprintf("a pod requests %s but %s has %d vCPUs and %g GiB%s: it cannot be scheduled there",
			podAsk(share, &pod), in.Type, in.VCPU, in.MemoryGiB, reserved)
	}
	for _, c := range pod.SharedClaims {
		if holdsPod(in, &parser.PodGPUs{CPU: c.CPU, MemoryGiB: c.MemoryGiB}) {
			continue
		}
		addNote(e, fmt.Sprintf("the %d pods that share %s request %s CPUs and %s GiB together, more than %s's %d vCPUs and %g GiB: they run on the one node that holds its devices, so some of them stay pending",
			c.Pods, c.Address, trimNum(c.CPU), trimNum(c.MemoryGiB), in.Type, in.VCPU, in.MemoryGiB))
		break
	}
	if pod.Together > 1 {
		if n := podsFit(in, share/count, &pod); n < pod.Together {
			if pod.TogetherAdmitted {
				return fmt.Sprintf("%s, but a %s holds %d of them: %s", pod.TogetherWhy, in.Type, n, kueueSuspends)
			}
			if rest := pod.Together - n; rest > 1 {
				return fmt.Sprintf("%s, but a %s holds %d of them: the other %d stay pending", pod.TogetherWhy, in.Type, n, rest)
			}
			return fmt.Sprintf("%s, but a %s holds %d of them: the last one stays pending", pod.TogetherWhy, in.Type, n)
		}
		if pod.MaxPerNode != pod.Together { // else the note on the node's share says it
			addNote(e, fmt.Sprintf("%s; a %s holds them", pod.TogetherWhy, in.Type))
		}
	}
	if ok, need := besideFits(in, share/count, &pod); !ok {
		if pod.BesideAdmitted {
			return fmt.Sprintf("%s, but a %s does not hold them (%s): %s", pod.BesideWhy, in.Type, need, kueueSuspends)
		}
		return fmt.Sprintf("%s, but a %s does not hold them: %s", pod.BesideWhy, in.Type, need)
	}
	if s := nodeShare(in, share/count, &pod); s > share/count {
		pod.NodeShare = s
		switch {
		case pod.MaxPerNode == 1:
			addNote(e, fmt.Sprintf("%s, so no two of them share a node: each pays for a whole %s (%s GPUs), of which it uses %s (other workloads' pods may take the rest)",
				pod.MaxPerNodeWhy, in.Type, trimNum(count), trimNum(share)))
		case s > roomShare(in, share/count, &pod):
			addNote(e, fmt.Sprintf("%s, so no more than %d of them share a node: each pays for 1/%d of a %s (%s GPUs), and uses %s of its GPUs (other workloads' pods may take the rest)",
				pod.MaxPerNodeWhy, pod.MaxPerNode, pod.MaxPerNode, in.Type, trimNum(count), trimNum(share)))
		default:
			addNote(e, fmt.Sprintf("the pod's CPU and memory requests take %s of %s, more than its GPUs' %s: it pays that share, since no more such pods fit a node",
				percent(s), in.Type, percent(share/count)))
		}
	}
	return refusedUnits(&pod) // last: the node and its GPUs are the pod's, though it never runs
}

// kueueSuspends is what becomes of pods Kueue admits together (topology-aware scheduling) that
// no node holds: Kueue admits none of them, not some left pending.
const kueueSuspends = "Kueue admits none of them, and the workload stays suspended"

// devices is how many GPUs a node's device plugin advertises for count GPUs of the catalog: one
// for a vGPU slice (AWS g6f, Azure NVads A10 v5), which the driver shows as a whole device.
func devices(count float64) float64 {
	if count > 0 && count < 1 {
		return 1
	}
	return count
}

// nodeShare is the share of a node one pod takes: the largest of its GPUs' share (gpuShare),
// its CPU request's share of the node's vCPUs and its memory request's share of the node's
// memory. A pod that asks for half a node's CPUs leaves room for one more such pod, whatever
// GPUs are left. A pod that no other pod of its workload may share a node with takes all of
// it; one of a workload that puts at most k pods on a node (MaxPerNode) takes at least 1/k.
func nodeShare(in catalog.Instance, gpuShare float64, pod *parser.PodGPUs) float64 {
	s := roomShare(in, gpuShare, pod)
	if pod.MaxPerNode > 0 {
		s = max(s, 1/float64(pod.MaxPerNode))
	}
	return min(s, 1)
}

// podsFit is how many pods of a workload a node of type in holds, gpuShare of its GPUs each:
// as many as its GPUs, CPUs and memory take, and no more than MaxPerNode when that caps them.
func podsFit(in catalog.Instance, gpuShare float64, pod *parser.PodGPUs) int {
	n := math.MaxInt32
	if s := roomShare(in, gpuShare, pod); s > 0 {
		n = int(math.Floor(1/s + 1e-9))
	}
	if pod.MaxPerNode > 0 {
		n = min(n, pod.MaxPerNode)
	}
	return n
}

// roomShare is the share of a node one pod's requests take: the largest of its GPUs' share, its
// CPU's and its memory's.
func roomShare(in catalog.Instance, gpuShare float64, pod *parser.PodGPUs) float64 {
	s := gpuShare
	if in.VCPU > 0 {
		s = max(s, pod.CPU/float64(in.VCPU))
	}
	if in.MemoryGiB > 0 {
		s = max(s, pod.MemoryGiB/in.MemoryGiB)
	}
	return min(s, 1)
}

func percent(f float64) string { return trimNum(math.Round(f*1000)/10) + "%" }

// attachToNamedVM attaches the GPU the pod's labels name to the N1 type its node is named as
// (GKE node pools of N1 VMs with T4, V100, P100 or P4 GPUs).
func (p *Pricer) attachToNamedVM(r *parser.Resource, e *Estimate, vm catalog.Instance) string {
	keys := gpuKeys(r.Pod.GPUNames)
	why := ""
	for _, acc := range p.Catalog.AllInstances(r.Provider) {
		if !attachedGPU(acc) || !keys[acc.GPU] || !p.runsResource(acc, r.Pod.Resource) {
			continue
		}
		n, reason := p.attachNode(r, e, acc, []catalog.Instance{vm})
		if reason == "" {
			n.attach(r, e, true)
			return ""
		}
		why = reason
	}
	if why != "" {
		return why
	}
	if why = p.retiredGPU(r); why != "" {
		return why
	}
	return fmt.Sprintf("%s has no GPUs of its own, and %s is not a GPU GCP attaches to N1 VMs (T4, V100, P100, P4)", vm.Type, strings.Join(r.Pod.GPUNames, ", "))
}

// retiredGPU says why a pod cannot run when its labels name a GPU its cloud has retired
// (GKE's cloud.google.com/gke-accelerator: nvidia-tesla-k80), or "".
func (p *Pricer) retiredGPU(r *parser.Resource) string {
	for _, n := range r.Pod.GPUNames {
		if x, ok := catalog.Retired(r.Provider, n); ok && x.Accelerator && x.By(p.today()) {
			return x.Why()
		}
	}
	return ""
}

// gpuKeys are the catalog GPU keys of GPU names from labels.
func gpuKeys(names []string) map[string]bool {
	keys := map[string]bool{}
	for _, n := range names {
		for _, k := range catalog.GPUKeysForName(n) {
			keys[k] = true
		}
	}
	return keys
}

// GPUCatalog tells the GPUs of a node group's nodes from the catalog, for the labels GPU feature
// discovery puts on them (kubernetes.GPUCatalog; parser/kubernetes does not import the catalog).
type GPUCatalog struct{ Catalog *catalog.Catalog }

// NodeGPUs returns the GPUs of a node of an instance type, or of the GPUs attached to it (GCP's
// N1 takes one type, the catalog's accelerator rows: nvidia-tesla-v100 is the 16 GB V100); ok is
// false when the catalog knows neither.
func (c GPUCatalog) NodeGPUs(provider, instanceType string, attached []parser.Accelerator) (parser.NodeGPUs, bool) {
	in, ok := c.Catalog.Instance(provider, instanceType)
	count := int(math.Ceil(in.GPUCount))
	if len(attached) > 0 {
		in, ok = c.Catalog.Instance(provider, attached[0].Type)
		count = attached[0].Count
	}
	g, known := c.Catalog.GPU(in.GPU)
	if !ok || !known {
		return parser.NodeGPUs{}, false
	}
	return parser.NodeGPUs{Key: in.GPU, Count: count, ReportedMiB: g.ReportedMiB, Family: g.Family(), ComputeMajor: g.ComputeMajor, ComputeMinor: g.ComputeMinor}, true
}

// Names reports whether one of names (label values: nvidia.com/gpu.product's
// NVIDIA-A100-SXM4-80GB) names the GPU of the catalog key, as GPUKeysForName reads names.
func (GPUCatalog) Names(key string, names []string) bool { return gpuKeys(names)[key] }

// Narrow returns what names and others both name (kubernetes.GPUCatalog): of each pair of names
// whose GPUs, as GPUKeysForName reads them, meet, the one that names fewer of them. A name of
// names the catalog does not read is kept, and names are returned as they are when the catalog
// reads none of others: what they name is not known.
func (GPUCatalog) Narrow(names, others []string) []string {
	type named struct {
		name string
		keys []string
	}
	var read []named // the others the catalog reads
	for _, b := range others {
		if k := catalog.GPUKeysForName(b); len(k) > 0 {
			read = append(read, named{b, k})
		}
	}
	if len(read) == 0 {
		return names
	}
	var out []string
	add := func(n string) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, a := range names {
		ka := catalog.GPUKeysForName(a)
		if len(ka) == 0 {
			add(a)
			continue
		}
		for _, b := range read {
			switch {
			case !slices.ContainsFunc(ka, func(k string) bool { return slices.Contains(b.keys, k) }):
			case len(b.keys) < len(ka):
				add(b.name)
			default:
				add(a)
			}
		}
	}
	return out
}

// Offers reports whether some catalog type of a cloud, in any region, can be the node of a pod
// with this selection: one its labels allow that holds its GPUs, CPU and memory (an N1 VM with
// GPUs attached on GCP), the types chooseNode picks among before prices. Karpenter passes over
// a NodePool none of whose instance types meets the pod's requirements
// (kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling: a NodeClaim template with
// no compatible instance type takes no pod). An unknown cloud offers anything.
func (c GPUCatalog) Offers(provider string, pod *parser.PodGPUs) bool {
	if provider == "" || provider == parser.Unknown {
		return true
	}
	p := &Pricer{Catalog: c.Catalog}
	keys := gpuKeys(pod.GPUNames)
	if len(pod.GPUNames) > 0 && len(keys) == 0 {
		return false
	}
	for _, in := range c.Catalog.Instances(provider) {
		if _, ok := p.fits(provider, in, pod, keys); ok {
			return true
		}
	}
	if !mayAttach(provider, pod, keys) {
		return false
	}
	var vms []catalog.Instance // the N1 types the labels allow, listed at the first GPU they may take
	for _, acc := range c.Catalog.AllInstances(provider) {
		if !p.attachable(acc, pod, keys) {
			continue
		}
		share, reason := p.perPodGPUs(pod, acc, &Estimate{})
		if reason != "" {
			continue
		}
		if vms == nil {
			vms = p.n1Types(pod)
		}
		for _, lim := range catalog.AttachLimits(acc.Type) {
			if limitHolds(lim, share, pod) && slices.ContainsFunc(vms, func(vm catalog.Instance) bool { return vmHolds(vm, lim, pod) }) {
				return true
			}
		}
	}
	return false
}

// perPodGPUs is how many of the node's GPUs one pod takes.
func (p *Pricer) perPodGPUs(pod *parser.PodGPUs, node catalog.Instance, e *Estimate) (float64, string) {
	n := float64(pod.Requested)
	switch {
	case pod.MIGProfile != "":
		g, _ := p.Catalog.GPU(node.GPU)
		prof, ok := partitionSlice(g, pod.MIGProfile)
		if !ok {
			return 0, fmt.Sprintf("MIG profile %s does not exist on %s (%s)", pod.MIGProfile, orName(g.Name, node.GPU), node.Type)
		}
		share := MIGShare(g, prof)
		addNote(e, fmt.Sprintf("MIG %s is %s of a GPU: the larger of its compute share (%d/7) and its memory share (%g of %g GB)",
			prof.Profile, trimNum(share), prof.ComputeSevenths, prof.MemoryGB, math.Round(g.MemoryGiB)))
		slice := "MIG " + prof.Profile + " slice"
		switch {
		case pod.SharedReplicas > 1:
			// Time-sliced slices (NVIDIA's device plugin, GKE's time-sharing): a unit is that
			// share of one slice.
			return sharedUnits(e, n*share, pod.SharedReplicas, sharedWhat(pod, "shared "+slice, slice), "slice"), ""
		case len(pod.SharedClaims) > 0:
			// Slices of a shared DRA ResourceClaim: allocated once for the pods that name it,
			// each pays its part of them.
			return pod.ClaimPaid() * share, ""
		case strings.HasSuffix(pod.Resource, ".shared"):
			e.PriceEstimated = true
			addNote(e, fmt.Sprintf("time-sliced %s with an unknown number of sharers: priced as a whole slice per unit, an upper bound", slice))
		}
		return n * share, ""
	case strings.HasSuffix(pod.Resource, "gpu.shared"):
		if pod.SharedReplicas > 0 {
			return sharedUnits(e, n, pod.SharedReplicas, sharedWhat(pod, "time-shared GPU", "GPU"), "GPU"), ""
		}
		e.PriceEstimated = true
		addNote(e, "time-shared GPU with an unknown number of sharers: priced as a whole GPU per unit, an upper bound")
	case pod.Resource == "nvidia.com/gpu" && pod.SharedReplicas > 0:
		// GKE GPU sharing (time-sharing or MPS), and NVIDIA's device plugin unless it renames
		// the resource, keep its name: a node advertises its GPUs × the sharers, so one unit is
		// that share of a GPU.
		return sharedUnits(e, n, pod.SharedReplicas, sharedWhat(pod, "shared GPU (time-sharing or MPS)", "GPU"), "GPU"), ""
	case len(pod.SharedClaims) > 0:
		// A shared DRA ResourceClaim's devices are allocated once for the pods that name it
		// (parser/kubernetes shareClaims): each pays its part.
		return pod.ClaimPaid(), ""
	}
	return n, ""
}

// gpusOnNode is how many of a node's GPUs a pod needs there, given the share it pays for: that
// share, but all of a shared ResourceClaim's devices, which are allocated on one node.
func gpusOnNode(pod *parser.PodGPUs, share float64) float64 {
	if len(pod.SharedClaims) > 0 {
		return max(share, float64(pod.Requested))
	}
	return share
}

// spreadByPlugin says whether NVIDIA's device plugin shares the pod's GPUs and lays its units
// out (sharedSpread): time-slicing or MPS of whole GPUs (a pod on a shared MIG slice is given
// one slice).
func spreadByPlugin(pod *parser.PodGPUs) bool {
	return pod.SharedReplicas > 1 && pod.MIGProfile == "" && (pod.SharingStrategy == parser.SharingTimeSlicing || pod.SharingStrategy == parser.SharingMPS)
}

// sharedSpread is how NVIDIA's device plugin lays out a pod's k units of GPUs it shares n ways,
// on a node of g GPUs: over how many GPUs, and the fewest units the pod holds of any one of them.
// Its default policy, distributed, takes each unit from the GPU with the fewest units taken, so
// that k units land on min(k, g) GPUs of a node with them free (best effort: where some GPUs are
// taken, more units may share one); packed fills one GPU's n units before it takes the next's.
// https://github.com/NVIDIA/k8s-device-plugin internal/rm/allocate.go (distributedAlloc,
// packedAlloc; sharedDevicesAllocationPolicy, PR 1621)
func sharedSpread(k, n, g int, packed bool) (gpus, fewest int) {
	k, n, g = max(k, 1), max(n, 1), max(g, 1)
	if packed {
		gpus = min((k+n-1)/n, g)
		return gpus, min(n, max(1, k-(gpus-1)*n))
	}
	gpus = min(k, g)
	return gpus, min(n, k/gpus)
}

// refusedUnits says why a pod's request for units of a shared GPU is refused, or "": one of its
// containers asks for more than one unit where that is refused (SharedOneUnit), so the kubelet
// fails the pod when it admits it, and it never runs. NVIDIA's device plugin refuses it with
// failRequestsGreaterThanOne set (MPS sets it unless its config says false); GKE's GPU sharing
// always does.
// https://github.com/NVIDIA/k8s-device-plugin#shared-access-to-gpus
// https://cloud.google.com/kubernetes-engine/docs/concepts/timesharing-gpus
func refusedUnits(pod *parser.PodGPUs) string {
	asked := cmp.Or(pod.LargestContainer, pod.Requested)
	if !pod.SharedOneUnit || asked < 2 || pod.SharedReplicas < 2 {
		return ""
	}
	switch pod.SharingStrategy {
	case parser.SharingTimeSlicing, parser.SharingMPS:
		why := "its config sets failRequestsGreaterThanOne"
		if pod.SharingStrategy == parser.SharingMPS {
			why = "MPS sets failRequestsGreaterThanOne unless its config says false"
		}
		return fmt.Sprintf("a container asks for %d units of %s, which NVIDIA's device plugin shares %d to a %s, and the plugin refuses a container more than one (%s): the pod fails when its node admits it and never runs; ask for one unit a container, or for GPUs that are not shared",
			asked, pod.Resource, pod.SharedReplicas, pod.UnitDevice(), why)
	}
	return fmt.Sprintf("a container asks for %d %s on nodes whose GPUs GKE shares between up to %d containers, and GKE refuses a container more than one there (\"at most 1 nvidia.com/gpu can be requested\"): the pod fails when its node admits it and never runs; ask for one a container, or for a pool whose GPUs are not shared",
		asked, pod.Resource, pod.SharedReplicas)
}

// sharedWhat names a shared device (a GPU or a MIG slice) by how it is shared, when the
// manifests say.
func sharedWhat(pod *parser.PodGPUs, unknown, device string) string {
	switch pod.SharingStrategy {
	case "time-slicing":
		return "time-sliced " + device + " (NVIDIA device plugin)"
	case "mps":
		return "MPS-shared " + device + " (NVIDIA device plugin)"
	case "time-sharing":
		return "time-shared " + device + " (GKE time-sharing)"
	}
	return unknown
}

// sharedUnits prices units of a device (a GPU, or a slice of one) that up to sharers pods share
// as that share of it: a lower bound (the device costs the same when fewer pods use it), so the
// price is an estimate. units is what the units would cost unshared, in GPUs.
func sharedUnits(e *Estimate, units float64, sharers int, what, device string) float64 {
	e.PriceEstimated = true
	addNote(e, fmt.Sprintf("%s: up to %d pods share one %s, so a unit is priced as 1/%d of it (as if every share is used)", what, sharers, device, sharers))
	return units / float64(sharers)
}

// MIGShare is the share of a GPU one MIG slice takes: the larger of its compute share (g/7)
// and its memory share, because a slice makes whichever it exhausts unavailable to others.
// NVIDIA MIG user guide: an A100/H100 has 7 compute slices and 8 memory slices.
func MIGShare(g catalog.GPU, prof catalog.MIGProfile) float64 {
	compute := float64(prof.ComputeSevenths) / 7
	memory := 0.0
	if g.MemoryGiB > 0 {
		memory = prof.MemoryGB / math.Round(g.MemoryGiB)
	}
	return math.Max(compute, memory)
}

func findMIG(g catalog.GPU, profile string) (catalog.MIGProfile, bool) {
	for _, m := range g.MIG {
		if m.Profile == profile {
			return m, true
		}
	}
	return catalog.MIGProfile{}, false
}

func orName(name, key string) string {
	if name != "" {
		return name
	}
	return key
}

func trimNum(f float64) string {
	s := fmt.Sprintf("%.4f", f)
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}

// chooseNode picks the catalog type among those the pod's labels allow (with enough GPUs, in the
// region, for the purchase option) whose whole nodes hold the workload's pods for the least, as
// an autoscaler provisions them; among equals, the one that makes a pod cheapest: node hourly ×
// (GPUs per pod ÷ GPUs per node). The pod is priced at that share. The choice is an estimate and
// is marked so.
func (p *Pricer) chooseNode(r *parser.Resource, e *Estimate) string {
	pod := r.Pod
	if r.Provider == parser.Unknown || r.Provider == "" {
		return "the node's cloud is unknown: name a region (config or --region) or an instance type"
	}
	if e.Region == "" {
		return noRegion(r) // every node's price depends on it: "no type in region (none)" says less
	}
	keys := gpuKeys(pod.GPUNames)
	if len(pod.GPUNames) > 0 && len(keys) == 0 {
		if why := p.retiredGPU(r); why != "" {
			return why
		}
		return fmt.Sprintf("GPU %s is not in the catalog", strings.Join(pod.GPUNames, ", "))
	}
	type cand struct {
		in       catalog.Instance
		cost     money.Micros  // the pod's share of the node
		nodes    money.Micros  // the whole nodes the workload's pods fill
		attached *attachedNode // an N1 VM with GPUs attached (in is the VM)
		retired  bool          // the type cannot be created any more (the catalog prices no retired attached GPU)
	}
	retired := func(typ string) bool {
		x, ok := catalog.Retired(r.Provider, typ)
		return ok && x.By(p.today())
	}
	pods := max(r.Quantity, 1)
	// whole is what the nodes that hold every pod of the workload cost: an autoscaler provisions
	// nodes for the pods waiting, so a type whose GPUs the workload cannot fill is not chosen
	// for a lower price per GPU (16-GPU a2-megagpu-16g nodes for four 1-GPU pods).
	whole := func(hourly money.Micros, share float64) money.Micros {
		perNode := max(math.Floor(1/share+1e-9), 1)
		return hourly.Mul(math.Ceil(float64(pods) / perNode))
	}
	var cands []cand
	apart := 0       // types passed over because they hold too few of the pods that must share a node
	besideApart := 0 // ... or not those of the other roles beside them
	for _, in := range p.Catalog.Instances(r.Provider) {
		share, ok := p.fits(r.Provider, in, pod, keys)
		if !ok {
			continue
		}
		if pod.Together > 1 && podsFit(in, share/devices(in.GPUCount), pod) < pod.Together {
			apart++
			continue
		}
		if ok, _ := besideFits(in, share/devices(in.GPUCount), pod); !ok {
			besideApart++
			continue
		}
		q, miss := p.Catalog.Quote(r.Provider, in.Type, e.Region, r.PurchaseOption)
		if miss != nil {
			continue
		}
		ns := nodeShare(in, share/in.GPUCount, pod)
		cands = append(cands, cand{in: in, cost: q.Hourly.Mul(ns), nodes: whole(q.Hourly, ns), retired: retired(in.Type)})
	}
	// GCP's T4, V100, P100 and P4 come attached to N1 VMs: a node of each GPU the labels name,
	// or of each GPU feature discovery's labels allow.
	if mayAttach(r.Provider, pod, keys) {
		vms := p.n1Types(pod)
		for _, acc := range p.Catalog.AllInstances(r.Provider) {
			if !p.attachable(acc, pod, keys) {
				continue
			}
			if n, reason := p.attachNode(r, e, acc, vms); reason == "" {
				share, _ := p.perPodGPUs(pod, acc, &Estimate{})
				ns := nodeShare(n.vm, share/float64(n.count), pod)
				cands = append(cands, cand{in: n.vm, cost: n.hourly.Mul(ns), nodes: whole(n.hourly, ns), attached: &n})
			} else if pod.Together > 1 {
				one := *r
				onePod := *pod
				onePod.Together = 0
				one.Pod = &onePod
				if _, reason := p.attachNode(&one, e, acc, vms); reason == "" {
					apart++ // a node holds one pod, not the pods that must share it
				}
			}
		}
	}
	if n := apart + besideApart; len(cands) == 0 && besideApart > 0 { // some held the role's pods, not the others beside them
		why := fmt.Sprintf("%s, but none of the %d %s catalog type%s the pod's labels allow holds them all", pod.BesideWhy, n, r.Provider, plural(n))
		if pod.BesideAdmitted {
			why += ": " + kueueSuspends
		}
		return why
	}
	if len(cands) == 0 && apart > 0 {
		why := fmt.Sprintf("%s, but none of the %d %s catalog type%s the pod's labels allow holds %d of them", pod.TogetherWhy, apart, r.Provider, plural(apart), pod.Together)
		if pod.TogetherAdmitted {
			why += ": " + kueueSuspends
		}
		return why
	}
	if len(cands) == 0 {
		what := slices.Concat(pod.InstanceTypes, pod.Families, pod.GPUNames, pod.AzureGPUNames, pod.Categories)
		if pod.NodeGPUs != nil {
			what = append(what, pod.NodeGPUs.String()+" GPUs a node")
		}
		if pod.Generations != nil {
			what = append(what, "generation "+pod.Generations.String())
		}
		if pod.GPUMemoryMiB != nil {
			what = append(what, pod.GPUMemoryMiB.String()+" MiB a GPU")
		}
		if pod.GPUReportedMiB != nil {
			what = append(what, pod.GPUReportedMiB.String()+" MiB a GPU as the driver reports it")
		}
		if len(pod.GPUFamilies) > 0 {
			what = append(what, "GPU family "+strings.Join(pod.GPUFamilies, "|"))
		}
		if pod.GPUComputeMajor != nil {
			what = append(what, "compute capability major "+pod.GPUComputeMajor.String())
		}
		if pod.GPUComputeMinor != nil {
			what = append(what, "compute capability minor "+pod.GPUComputeMinor.String())
		}
		if pod.GPUComputeCapability != nil {
			what = append(what, "compute capability "+pod.GPUComputeCapability.String())
		}
		if pod.Excluded != nil {
			what = append(what, pod.Excluded.String())
		}
		matching := ""
		if len(what) > 0 {
			matching = " matching " + strings.Join(what, ", ")
		}
		room := ""
		if pod.CPU > 0 || pod.MemoryGiB > 0 {
			room = fmt.Sprintf(" with room for its %s CPUs and %s GiB", trimNum(pod.CPU), trimNum(pod.MemoryGiB))
		}
		return fmt.Sprintf("no %s catalog type%s holds %d %s%s in region %s", r.Provider, matching, pod.Requested, pod.Resource, room, orName(e.Region, "(none)"))
	}
	// A retired type is chosen only when nothing else is allowed: its price then says so.
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].retired != cands[j].retired {
			return !cands[i].retired
		}
		if cands[i].nodes != cands[j].nodes {
			return cands[i].nodes < cands[j].nodes
		}
		if cands[i].cost != cands[j].cost {
			return cands[i].cost < cands[j].cost
		}
		return cands[i].in.Type < cands[j].in.Type
	})
	best := cands[0]
	r.InstanceType, e.InstanceType = best.in.Type, best.in.Type
	e.PriceEstimated = true
	if best.attached != nil {
		best.attached.attach(r, e, false)
		return ""
	}
	holds := "holds the pod on the cheapest whole node"
	if pods > 1 {
		holds = fmt.Sprintf("holds the workload's %d pods on the cheapest whole nodes", pods)
	}
	if besideApart > 0 {
		holds += fmt.Sprintf(" (passed over: %d type%s where its own pods fit, but not with the other roles' pods beside them)", besideApart, plural(besideApart))
	}
	addNote(e, fmt.Sprintf("node type estimated: of the %d catalog type%s the pod's labels allow, %s %s", len(cands), plural(len(cands)), best.in.Type, holds))
	return ""
}

// fits reports whether a catalog type can be the node of a pod, before its price: the pod's
// labels allow it (keys are the catalog GPU keys they name), and it holds the pod's GPUs, CPU and
// memory; share is the type's GPUs one pod takes.
func (p *Pricer) fits(provider string, in catalog.Instance, pod *parser.PodGPUs, keys map[string]bool) (share float64, ok bool) {
	if !allowedType(provider, in, pod) || len(keys) > 0 && !keys[in.GPU] || !p.reportsMemory(in.GPU, pod) || !p.hasArchitecture(in.GPU, pod) || !p.runsResource(in, pod.Resource) || !holdsPod(in, claimNode(pod)) ||
		p.excludes(provider, in, pod.Excluded) {
		return 0, false
	}
	share, reason := p.perPodGPUs(pod, in, &Estimate{})
	if reason != "" || gpusOnNode(pod, share) > in.GPUCount+1e-9 || in.GPUCount < 1 && pod.MIGProfile == "" {
		return 0, false
	}
	return share, true
}

// mayAttach reports whether a pod's node may be an N1 VM with GPUs attached (GCP's T4, V100,
// P100 and P4): its labels name the GPU, or GPU feature discovery's memory or architecture, and
// nothing of another cloud.
func mayAttach(provider string, pod *parser.PodGPUs, keys map[string]bool) bool {
	gfd := pod.GPUReportedMiB != nil || selectsArchitecture(pod)
	return provider == parser.GCP && (len(keys) > 0 || gfd) && attachesGPUs(pod)
}

// attachable reports whether the pod's labels allow an attached GPU of the catalog (acc).
func (p *Pricer) attachable(acc catalog.Instance, pod *parser.PodGPUs, keys map[string]bool) bool {
	return attachedGPU(acc) && (len(keys) == 0 || keys[acc.GPU]) && p.reportsMemory(acc.GPU, pod) && p.hasArchitecture(acc.GPU, pod) && p.runsResource(acc, pod.Resource) &&
		(pod.GPUMemoryMiB == nil || pod.GPUMemoryMiB.AllowsWithin(acc.GPUMemoryGiB*1024, 0.03)) && !p.excludesGPU(acc, pod.Excluded)
}

// reportsMemory reports whether a GPU reports the memory the pod's labels ask for: GPU feature
// discovery's nvidia.com/gpu.memory is the driver's total in MiB (NVML), the catalog's
// reported_mib, within parser.ReportedMiBTolerance.
func (p *Pricer) reportsMemory(gpu string, pod *parser.PodGPUs) bool {
	if pod.GPUReportedMiB == nil {
		return true
	}
	g, ok := p.Catalog.GPU(gpu)
	return ok && g.ReportedMiB > 0 && pod.GPUReportedMiB.AllowsWithin(float64(g.ReportedMiB), parser.ReportedMiBTolerance)
}

// hasArchitecture reports whether a GPU is of the architecture the pod's labels ask for: GPU
// feature discovery's nvidia.com/gpu.family (catalog.GPU.Family; a GPU whose family GFD's name
// is not known qualifies for none) and its CUDA compute capability, gpu.compute.major and
// gpu.compute.minor, which it puts on NVIDIA GPU nodes only; and the compute capability a DRA
// claim bounds as a whole (NVIDIA's driver publishes it for its GPUs only).
func (p *Pricer) hasArchitecture(gpu string, pod *parser.PodGPUs) bool {
	if !selectsArchitecture(pod) {
		return true
	}
	g, ok := p.Catalog.GPU(gpu)
	switch {
	case !ok || g.ComputeMajor == 0:
		return false
	case len(pod.GPUFamilies) > 0 && !slices.Contains(pod.GPUFamilies, g.Family()):
		return false
	case pod.GPUComputeMajor != nil && !pod.GPUComputeMajor.Allows(float64(g.ComputeMajor)):
		return false
	case pod.GPUComputeCapability != nil && !pod.GPUComputeCapability.Allows(parser.Capability{Major: g.ComputeMajor, Minor: g.ComputeMinor}):
		return false
	}
	return pod.GPUComputeMinor == nil || pod.GPUComputeMinor.Allows(float64(g.ComputeMinor))
}

// selectsArchitecture reports whether the pod's labels name a GPU architecture (GFD's gpu.family or
// gpu.compute.major/minor), or its claims a compute capability.
func selectsArchitecture(pod *parser.PodGPUs) bool {
	return len(pod.GPUFamilies) > 0 || pod.GPUComputeMajor != nil || pod.GPUComputeMinor != nil || pod.GPUComputeCapability != nil
}

// claimNode is the pod as its node must hold it: with the CPU and memory of every pod that
// shares one of its claims' devices, which are all on that node (PodGPUs.ClaimNodeAsk).
func claimNode(pod *parser.PodGPUs) *parser.PodGPUs {
	if len(pod.SharedClaims) == 0 {
		return pod
	}
	c := *pod
	c.CPU, c.MemoryGiB = pod.ClaimNodeAsk()
	return &c
}

// holdsPod reports whether a node type can give one pod the CPU and memory it requests: on GCP
// what GKE leaves allocatable; elsewhere the whole capacity (EKS and AKS reserve amounts that
// depend on the node's pod limit, so this never rules out a node that could hold the pod).
func holdsPod(in catalog.Instance, pod *parser.PodGPUs) bool {
	if in.VCPU == 0 || in.MemoryGiB == 0 {
		return true // the catalog does not say: nothing to check against
	}
	cpu, mem := float64(in.VCPU), in.MemoryGiB
	if in.Provider == parser.GCP {
		cpu, mem = gkeAllocatable(in.VCPU, in.MemoryGiB)
	}
	return cpu+1e-9 >= pod.CPU && mem+1e-9 >= pod.MemoryGiB
}

// allowedType checks a catalog type against the pod's candidate types and families.
func allowedType(provider string, in catalog.Instance, pod *parser.PodGPUs) bool {
	if len(pod.InstanceTypes) > 0 && !containsFold(pod.InstanceTypes, in.Type) {
		return false
	}
	if len(pod.AzureGPUNames) > 0 && (provider != parser.Azure || !namesGPU(in.Type, pod.AzureGPUNames)) {
		return false
	}
	if pod.NodeGPUs != nil && !pod.NodeGPUs.Allows(in.GPUCount) {
		return false
	}
	if len(pod.Categories) > 0 && !slices.Contains(pod.Categories, typeCategory(in.Type)) {
		return false
	}
	if pod.Generations != nil && (provider != parser.AWS && provider != parser.GCP || !pod.Generations.Allows(float64(typeGeneration(in.Type)))) {
		return false
	}
	// The EC2 API and the catalog round GPU memory differently (24576 MiB; 24 GiB): 3 % apart.
	if pod.GPUMemoryMiB != nil && !pod.GPUMemoryMiB.AllowsWithin(in.GPUMemoryGiB*1024, 0.03) {
		return false
	}
	if len(pod.Families) > 0 && !slices.ContainsFunc(pod.Families, func(f string) bool { return inFamily(provider, in.Type, f) }) {
		return false
	}
	return provider != parser.GCP || gkeAcceleratorAllows(in.Type, pod.GPUNames)
}

// gkeAcceleratorAllows reports whether a GCP machine type can be the node of a pod that names
// its GPU by names: GKE labels a node with the accelerator type built into its machine, and
// two types of one GPU come in different series (nvidia-h100-80gb in a3-highgpu,
// nvidia-h100-mega-80gb in a3-megagpu), so a name with series of its own allows only those.
// A machine without GPUs built in, and a name that is not one of these (h100), leave it to the
// GPU's key.
func gkeAcceleratorAllows(machineType string, names []string) bool {
	if len(names) == 0 || parser.GCPBuiltInAccelerator(machineType) == "" {
		return true
	}
	for _, n := range names {
		series := parser.GCPBuiltInSeries(strings.ToLower(n))
		if len(series) == 0 || slices.ContainsFunc(series, func(s string) bool { return strings.HasPrefix(machineType, s) }) {
			return true
		}
	}
	return false
}

// inFamily reports whether a type is of a family as the node labels name families: an EC2 or
// GCE type's name before its size (g5 of g5.xlarge, a2 of a2-highgpu-1g), an Azure size's
// sku-family.
func inFamily(provider, typ, family string) bool {
	return strings.HasPrefix(typ, family+".") || strings.HasPrefix(typ, family+"-") || provider == parser.Azure && inAzureFamily(typ, family)
}

// excludes reports whether the pod's selection rules a catalog type out (NotIn): its type,
// family, category, generation or number of GPUs, or its GPU (excludesGPU).
func (p *Pricer) excludes(provider string, in catalog.Instance, x *parser.NodeExclusions) bool {
	switch {
	case x == nil:
		return false
	case containsFold(x.InstanceTypes, in.Type),
		slices.ContainsFunc(x.Families, func(f string) bool { return inFamily(provider, in.Type, f) }),
		provider == parser.Azure && namesGPU(in.Type, x.AzureGPUNames),
		(provider == parser.AWS || provider == parser.GCP) && slices.Contains(x.Categories, typeCategory(in.Type)),
		(provider == parser.AWS || provider == parser.GCP) && slices.Contains(x.Generations, typeGeneration(in.Type)),
		in.GPUCount == math.Trunc(in.GPUCount) && slices.Contains(x.NodeGPUs, int(in.GPUCount)):
		return true
	}
	return p.excludesGPU(in, x)
}

// excludesGPU reports whether the pod's selection rules a type's GPU out: its name, its memory
// (as the cloud's API or the driver reports it, within the tolerances the In values are matched
// with), its GPU feature discovery family or compute capability.
func (p *Pricer) excludesGPU(in catalog.Instance, x *parser.NodeExclusions) bool {
	if x == nil {
		return false
	}
	// near matches a value as the In values of a label are matched (CountRange.AllowsWithin).
	near := func(vals []int, n, tolerance float64) bool {
		return len(vals) > 0 && parser.CountRange{In: vals}.AllowsWithin(n, tolerance)
	}
	if gpuKeys(x.GPUNames)[in.GPU] || in.GPUMemoryGiB > 0 && near(x.GPUMemoryMiB, in.GPUMemoryGiB*1024, 0.03) {
		return true
	}
	g, ok := p.Catalog.GPU(in.GPU)
	if !ok {
		return false
	}
	return g.ReportedMiB > 0 && near(x.GPUReportedMiB, float64(g.ReportedMiB), parser.ReportedMiBTolerance) ||
		g.ComputeMajor > 0 && (slices.Contains(x.GPUFamilies, g.Family()) || slices.Contains(x.ComputeMajor, g.ComputeMajor) || slices.Contains(x.ComputeMinor, g.ComputeMinor))
}

// inAzureFamily: AKS node auto-provisioning's sku-family is the size's leading letter
// (Standard_NC24ads_A100_v4 is family N); a longer value (NC) is read as a prefix.
func inAzureFamily(size, family string) bool {
	name, ok := cutPrefixFold(size, "Standard_")
	return ok && family != "" && len(name) > len(family) && strings.EqualFold(name[:len(family)], family)
}

// namesGPU reports whether an Azure size's name carries one of these GPU names, as AKS node
// auto-provisioning's sku-gpu-name reads it: Standard_NC40ads_H100_v5 is an H100 (an H100 NVL in
// the catalog), Standard_ND96asr_v4 (A100 40GB) carries none.
func namesGPU(size string, names []string) bool {
	parts := strings.Split(size, "_")
	if len(parts) < 4 { // Standard, size, accelerator, version
		return false
	}
	for _, n := range names {
		if strings.EqualFold(parts[2], n) {
			return true
		}
	}
	return false
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// typeCategory is a type's category as Karpenter's instance-category reads it: the letters its
// family starts with (EC2's g of g6e.xlarge, inf of inf2.xlarge; the GCP provider's a of
// a3-highgpu-8g, n of n1-standard-8: extractCategory in karpenter-provider-gcp's
// pkg/providers/instancetype/types.go).
func typeCategory(t string) string {
	family, _, _ := strings.Cut(t, ".")
	if i := strings.IndexFunc(family, func(r rune) bool { return !unicode.IsLetter(r) }); i >= 0 {
		return family[:i]
	}
	return family
}

// typeGeneration is a type's generation as Karpenter's instance-generation reads it: the digits
// after the category (g6e.xlarge is 6, p4d.24xlarge 4, inf2.xlarge 2; on GCP a3-highgpu-8g is 3
// and a4x-highgpu-4g 4); 0 when none.
func typeGeneration(t string) int {
	family, _, _ := strings.Cut(t, ".")
	rest := strings.TrimLeftFunc(family, unicode.IsLetter)
	n := 0
	for _, r := range rest {
		if !unicode.IsDigit(r) {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// runsResource reports whether a node's accelerators serve the extended resource the pod
// requests: nvidia.com/* needs NVIDIA GPUs, amd.com/gpu AMD ones, aws.amazon.com/neuron* AWS
// Inferentia or Trainium. Other resources (a DRA device class) are not checked.
func (p *Pricer) runsResource(in catalog.Instance, resource string) bool {
	vendor := ""
	switch {
	case strings.HasPrefix(resource, "nvidia.com/"):
		vendor = "nvidia"
	case strings.HasPrefix(resource, "amd.com/"):
		vendor = "amd"
	case strings.HasPrefix(resource, "aws.amazon.com/neuron"):
		vendor = "aws"
	default:
		return true
	}
	g, ok := p.Catalog.GPU(in.GPU)
	return ok && g.Vendor == vendor
}
