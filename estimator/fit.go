package estimator

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/estimator/memory"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/profiles"
)

// Fit verdicts (DESIGN.md).
const (
	VerdictFits       = "fits"
	VerdictTight      = "tight"
	VerdictDoesNotFit = "does_not_fit"
	VerdictOversized  = "oversized"
	VerdictUnknown    = "unknown"
)

// Thresholds of the verdicts. The oversizing thresholds are policy data (policy_data in the
// config): defaults 40% of memory (FORMULAS.md: under 40% of VRAM on an 80 GB card suggests a
// smaller GPU) and 25% mean utilization.
type Thresholds struct {
	Tight                   float64 // share of usable memory above which a fit is tight (0.90)
	OversizedMemoryFraction float64 // share below which the GPU is oversized (0.40)
	OversizedUtilization    float64 // measured mean GPU utilization (%) below which it is oversized (25)
}

// DefaultThresholds are the documented defaults.
var DefaultThresholds = Thresholds{Tight: 0.90, OversizedMemoryFraction: 0.40, OversizedUtilization: 25}

// gpuTarget is what a workload runs on: usable memory per GPU and how many GPUs one copy gets.
type gpuTarget struct {
	name        string
	gpu         catalog.GPU
	usableBytes float64
	gpus        float64
	mig         bool
	migProfile  catalog.MIGProfile // the MIG slice a copy runs on, when mig
	slice       bool               // a vGPU slice: part of one GPU, shown to the workload as a device of its own
	// timeSliced is how many pods time-slice the GPU, or the MIG slice when mig (NVIDIA's device
	// plugin, GKE's time-sharing), 0 when none do: each sees all of its memory, which the others
	// use too, and pays its share of it.
	timeSliced int
	// share is the part of the GPU's (or MIG slice's) time a pod on a shared one pays for (1/n
	// time-sliced, its units' share under MPS); 0 on one of its own.
	share float64
	// mps says the pods that share it (timeSliced) run side by side through MPS, which without
	// a memory limit isolates no more memory than time-slicing does.
	mps bool
	// limitedBy, when set, is the DRA claim whose MPS memory limit caps usableBytes for each
	// process; clients is how many pods share the GPU under that limit (when more than one),
	// and wholeBytes the usable memory of the whole GPU (or slice), wholeName, they share: the
	// limits do not reserve memory, so together they may need more than it has.
	limitedBy  string
	clients    int
	wholeBytes float64
	wholeName  string
}

// underClaimSharing applies a pod's DRA claim sharing configuration: MPS shares the GPU between
// the processes side by side, and a memory limit caps what each may allocate of each GPU (the
// MPS control daemon's device pinned memory limit: an allocation past it fails). A limit of at
// least the GPU's usable memory caps nothing.
// https://docs.nvidia.com/deploy/mps/latest/mpsv2-interface.html (set_default_device_pinned_mem_limit)
func (t *gpuTarget) underClaimSharing(s *parser.ClaimSharing) {
	if s == nil || s.Strategy != parser.SharingMPS {
		return
	}
	t.mps = true
	limit := s.MemoryLimitGiB * memory.GiB
	if limit <= 0 || limit >= t.usableBytes {
		return
	}
	t.limitedBy, t.wholeBytes, t.wholeName = cmp.Or(s.From, s.Claim), t.usableBytes, t.name
	if t.timeSliced > 1 {
		t.clients = t.timeSliced
	}
	t.timeSliced, t.usableBytes, t.slice = 0, limit, true
	t.name = fmt.Sprintf("an MPS limit of %s GiB on %s", trimNum(s.MemoryLimitGiB), t.name)
}

// slicePaid is the share of a GPU a pod on a MIG slice pays for: the slice's, or its part of a
// time-sliced one.
func (t gpuTarget) slicePaid() float64 {
	paid := MIGShare(t.gpu, t.migProfile)
	if t.share > 0 {
		paid *= t.share
	}
	return paid
}

// raiseLimit says, for a workload that needs req bytes of each GPU and does not fit under its
// claim's MPS memory limit, the limit that would hold it, when the GPU has that much: a
// pre-allocating engine takes its fraction of the limit. It says too when its sharers would then
// be promised more than the GPU has; fix is that limit when they would not. "" and nil when no
// limit holds it back.
func (t gpuTarget) raiseLimit(req, fraction float64) (string, *MPSLimitFix) {
	if t.limitedBy == "" {
		return "", nil
	}
	if fraction > 0 {
		req /= fraction
	}
	if req > t.wholeBytes {
		return fmt.Sprintf("; %s's %.1f GiB usable cannot hold it under any limit", t.wholeName, t.wholeBytes/memory.GiB), nil
	}
	limit := math.Ceil(req/memory.GiB) * memory.GiB
	quantity := fmt.Sprintf("%.0fGi", limit/memory.GiB)
	if limit > t.wholeBytes { // the GiB above the need is more than the GPU has: in MiB
		limit = math.Ceil(req/(1<<20)) * (1 << 20)
		quantity = fmt.Sprintf("%.0fMi", limit/(1<<20))
	}
	s := fmt.Sprintf("; a limit of %s in %s's MPS configuration would hold it", quantity, t.limitedBy)
	if n := t.clients; n > 1 && float64(n)*limit > t.wholeBytes {
		s += fmt.Sprintf(", but not the %d pods that share each %s (%.1f GiB together, of %.1f GiB usable)", n, t.device(), float64(n)*limit/memory.GiB, t.wholeBytes/memory.GiB)
		return s, nil
	}
	return s, &MPSLimitFix{Config: t.limitedBy, Limit: quantity}
}

// sharingEach says how the pods that share it (timeSliced) share each device: "time-slice each
// GPU", "share each GPU through MPS".
func (t gpuTarget) sharingEach() string {
	if t.mps {
		return "share each " + t.device() + " through MPS"
	}
	return "time-slice each " + t.device()
}

// isolatesNone says why the memory of a shared device is not each pod's own.
func (t gpuTarget) isolatesNone() string {
	if t.mps {
		return "MPS without a memory limit (defaultPinnedDeviceMemoryLimit) does not isolate memory"
	}
	return "time-slicing does not isolate memory"
}

// device names what is shared when timeSliced: a GPU or a MIG slice.
func (t gpuTarget) device() string {
	if t.mig {
		return "slice"
	}
	return "GPU"
}

// targetOf describes the GPUs of a resource for one copy of the workload: a Kubernetes pod gets
// the GPUs (or the MIG slice) it requests; a Terraform resource gives the workload all the GPUs
// of its instances, for training, or those of one instance per replica, for serving.
func (p *Pricer) targetOf(e *Estimate, r *parser.Resource, prof *profiles.Profile) (gpuTarget, string) {
	in, ok := p.instance(e.Provider, e.InstanceType)
	if ok && in.GPU == "" && e.GPU != nil && e.GPU.Key != "" && e.GPU.Count >= 1 {
		// A GCP N1 VM with GPUs attached (guest_accelerator, or a GKE node chosen for a pod):
		// the GPUs are the accelerators'.
		in.GPU, in.GPUCount, in.GPUMemoryGiB = e.GPU.Key, e.GPU.Count, e.GPU.MemoryGiB
	}
	if !ok && e.InstanceType == "" && len(r.Accelerators) > 0 && e.GPU != nil && e.GPU.Key != "" && e.GPU.Count >= 1 {
		// GPUs without a machine type of the catalog's (a Cloud Run instance, which names only
		// its GPU): the GPUs alone are the target.
		in, ok = catalog.Instance{GPU: e.GPU.Key, GPUCount: e.GPU.Count, GPUMemoryGiB: e.GPU.MemoryGiB}, true
	}
	if !ok || in.GPU == "" {
		return gpuTarget{}, fmt.Sprintf("%s has no GPU model in the catalog", orName(e.InstanceType, "the instance"))
	}
	g, _ := p.Catalog.GPU(in.GPU)
	t := instanceTarget(in, g)
	perInstance := t.gpus
	switch {
	case r.Pod != nil && r.Pod.MIGProfile != "":
		prof, ok := partitionSlice(g, r.Pod.MIGProfile)
		if !ok {
			return gpuTarget{}, fmt.Sprintf("MIG profile %s does not exist on %s", r.Pod.MIGProfile, g.Name)
		}
		t.usableBytes = prof.MemoryGB * 1e9
		t.name = fmt.Sprintf("%s MIG %s", g.Name, prof.Profile)
		t.gpus, t.mig, t.migProfile = float64(r.Pod.Requested), true, prof
		switch n := r.Pod.SharedReplicas; {
		case n > 1 && r.Pod.SharingStrategy != parser.SharingMPS:
			// A time-sliced slice (MIG devices are not shared by MPS): the pod runs on one
			// slice, whose memory its sharers use too, for its share of the slice's time.
			// https://github.com/NVIDIA/k8s-device-plugin#shared-access-to-gpus
			t.gpus, t.share, t.timeSliced = 1, 1/float64(n), n
		case r.Pod.ClaimSharers() > 1:
			// Slices of a shared DRA ResourceClaim: each pod that names it uses all of them
			// with the others (below), for its part of them.
			t.timeSliced, t.share = r.Pod.ClaimSharers(), r.Pod.ClaimPaid()/float64(r.Pod.Requested)
		}
		t.underClaimSharing(r.Pod.ClaimSharing)
	case r.Pod != nil && r.Pod.SharingStrategy != "" && r.Pod.SharedReplicas > 1:
		// NVIDIA's device plugin shares each GPU between the pods that hold its units, and lays
		// a pod's units out over the node's GPUs (sharedSpread): the pod runs on those GPUs,
		// judged on the one it holds the fewest units of. Under MPS each unit is an equal share
		// of a GPU's memory, enforced; under time-slicing the pod sees all of it, which the
		// pods holding its other units use too: a pod that holds every unit of its GPUs has
		// them to itself. GKE's time-sharing gives a container one GPU, and isolates no memory
		// either.
		// https://github.com/NVIDIA/k8s-device-plugin#shared-access-to-gpus
		// https://cloud.google.com/kubernetes-engine/docs/concepts/timesharing-gpus
		n := r.Pod.SharedReplicas
		gpus, held := 1, 1
		if spreadByPlugin(r.Pod) {
			gpus, held = sharedSpread(int(r.Pod.Requested), n, int(perInstance), r.Pod.SharedPacked)
		}
		t.gpus, t.share = float64(gpus), float64(held)/float64(n)
		switch {
		case r.Pod.SharingStrategy == parser.SharingMPS:
			t.usableBytes *= t.share
			t.name = fmt.Sprintf("a %d/%d MPS share of %s", held, n, g.Name)
			t.slice = true
		case held >= n:
			t.share = 0
		default:
			t.timeSliced = n - held + 1 // this pod and one for each unit it does not hold
		}
	case r.Pod != nil && r.Pod.ClaimSharers() > 1:
		// A shared DRA ResourceClaim: every pod that names it sees all of its devices, which
		// the others use at the same time; nothing isolates their memory, and the GPU
		// time-slices between their processes. It pays its part of each.
		// https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/
		t.gpus = float64(r.Pod.Requested)
		t.timeSliced, t.share = r.Pod.ClaimSharers(), r.Pod.ClaimPaid()/float64(r.Pod.Requested)
		t.underClaimSharing(r.Pod.ClaimSharing)
	case r.Pod != nil:
		t.gpus = float64(r.Pod.Requested)
		t.underClaimSharing(r.Pod.ClaimSharing) // a claim of the pod's own, MPS between its containers
	case r.GPUPartition != "":
		slice, ok := partitionSlice(g, r.GPUPartition)
		if !ok {
			return gpuTarget{}, fmt.Sprintf("MIG partition %s does not exist on %s", r.GPUPartition, g.Name)
		}
		// Each GPU is split into slices; a copy of the workload runs on one (or, for training,
		// on all of them).
		t.usableBytes = slice.MemoryGB * 1e9
		t.name = fmt.Sprintf("%s MIG %s", g.Name, slice.Profile)
		t.gpus, t.mig, t.migProfile = perInstance*float64(slice.MaxPerGPU), true, slice
		if prof.Workload.Type == profiles.TypeTraining {
			t.gpus *= float64(max(1, e.Quantity))
		}
	case prof.Workload.Type == profiles.TypeTraining:
		t.gpus = perInstance * float64(max(1, e.Quantity))
	}
	return t, ""
}

// aksGPUInstance is an AKS GPU-instance profile: MIG1g ... MIG7g, sevenths of the GPU's compute.
var aksGPUInstance = regexp.MustCompile(`^(?i:mig)([1-7])(?i:g)$`)

// partitionSlice finds the MIG slice a node group's GPUs are split into: a profile by name
// ("1g.5gb"), or AKS's GPU-instance profile ("MIG2g"), which names the compute share and gets
// the smallest slice with it (on an A100 40GB, MIG1g is 1g.5gb; on an 80GB one, 1g.10gb).
// https://learn.microsoft.com/azure/aks/gpu-multi-instance
func partitionSlice(g catalog.GPU, partition string) (catalog.MIGProfile, bool) {
	if m, ok := findMIG(g, partition); ok {
		return m, true
	}
	m := aksGPUInstance.FindStringSubmatch(partition)
	if m == nil {
		return catalog.MIGProfile{}, false
	}
	sevenths := int(m[1][0] - '0')
	var best catalog.MIGProfile
	found := false
	for _, m := range g.MIG {
		if m.ComputeSevenths == sevenths && (!found || m.MemoryGB < best.MemoryGB) {
			best, found = m, true
		}
	}
	return best, found
}

// instanceTarget is what one instance of in gives a workload: its GPUs, or, on a vGPU slice (AWS
// g6f, Azure NVads A10 v5, GCP's fractional G4), one GPU — the driver shows the slice as a
// whole device — with the slice's memory.
func instanceTarget(in catalog.Instance, g catalog.GPU) gpuTarget {
	t := gpuTarget{name: g.Name, gpu: g, usableBytes: g.UsableGiB() * memory.GiB, gpus: in.GPUCount}
	if in.GPUCount > 0 && in.GPUCount < 1 {
		t.usableBytes = math.Min(t.usableBytes, in.GPUMemoryGiB*memory.GiB*float64(g.ReportedMiB)/(g.MemoryGiB*1024))
		t.name, t.gpus, t.slice = sliceName(in.GPUCount, g.Name), 1, true
	}
	return t
}

// sliceName names a vGPU slice: "NVIDIA L4 (1/8 slice)".
func sliceName(fraction float64, gpu string) string {
	if n := math.Round(1 / fraction); math.Abs(n*fraction-1) < 1e-3 { // the catalog keeps 4 decimals: 0.1667, 0.3333
		return fmt.Sprintf("%s (1/%.0f slice)", gpu, n)
	}
	return fmt.Sprintf("%s (%s of one)", gpu, trimNum(fraction))
}

// judge compares a memory estimate with a target.
func judge(mem *memory.Estimate, t gpuTarget, measuredUtil *float64, th Thresholds) *Fit {
	if mem.SGLang != nil {
		return judgeSGLang(mem, t, th)
	}
	req := mem.PerGPUBytes
	f := &Fit{Source: "estimate"}
	if mem.Measured {
		f.Source = "measured"
	}
	reqGiB := round2(req / memory.GiB)
	avail := t.usableBytes
	availGiB := round2(avail / memory.GiB)
	f.RequiredGiBPerGPU, f.AvailableGiBPerGPU = &reqGiB, &availGiB
	capacity := avail
	if mem.PreallocateFraction > 0 {
		capacity = avail * mem.PreallocateFraction
	}
	util := req / avail
	u := round3(util)
	f.MemoryUtilization = &u
	switch {
	case float64(mem.GPUs) > t.gpus+1e-9:
		f.Verdict = VerdictDoesNotFit
		f.Reason = fmt.Sprintf("the workload spans %d GPUs; %s gives it %s", mem.GPUs, t.name, trimNum(t.gpus))
	case req > capacity:
		f.Verdict = VerdictDoesNotFit
		if mem.PreallocateFraction > 0 {
			f.Reason = fmt.Sprintf("needs %.1f GiB per GPU; gpu_memory_utilization %.2f leaves %.1f GiB of %s", req/memory.GiB, mem.PreallocateFraction, capacity/memory.GiB, t.name)
		} else {
			f.Reason = fmt.Sprintf("needs %.1f GiB per GPU; %s has %.1f GiB usable", req/memory.GiB, t.name, avail/memory.GiB)
		}
		more, fix := t.raiseLimit(req, mem.PreallocateFraction)
		f.Reason += more
		f.MPSLimitFix = fix
	case t.clients > 1 && mem.PreallocateFraction > 0 && float64(t.clients)*capacity > t.wholeBytes:
		// Each pre-allocating engine reserves its fraction of what its MPS limit lets it
		// allocate when it starts (taken, as for the device plugin's MPS shares, as the memory
		// the engine sees: not measured on a device); the limits reserve nothing, so the last
		// to start finds too little free.
		f.Verdict = VerdictTight
		f.Reason = fmt.Sprintf("the engine reserves %.2f of the %.1f GiB each pod may use (%s's MPS memory limit) when it starts, %.1f GiB, and %d pods share each %s: together they reserve %.1f GiB of %s's %.1f GiB usable, so the last does not start; the limits overcommit its memory",
			mem.PreallocateFraction, avail/memory.GiB, t.limitedBy, capacity/memory.GiB, t.clients, t.device(), float64(t.clients)*capacity/memory.GiB, t.wholeName, t.wholeBytes/memory.GiB)
	case t.clients > 1 && mem.PreallocateFraction == 0 && float64(t.clients)*req > th.Tight*t.wholeBytes:
		// MPS memory limits cap each pod but reserve nothing: the pods that share the GPU run
		// out of it together.
		f.Verdict = VerdictTight
		f.Reason = fmt.Sprintf("needs %.1f GiB, within the %.1f GiB each pod may use (%s's MPS memory limit), but %d pods share each %s and %d such pods need %.1f GiB together of %s's %.1f GiB usable: the limits overcommit its memory",
			req/memory.GiB, avail/memory.GiB, t.limitedBy, t.clients, t.device(), t.clients, float64(t.clients)*req/memory.GiB, t.wholeName, t.wholeBytes/memory.GiB)
	case t.timeSliced > 1 && float64(t.timeSliced)*mem.PreallocateFraction > 1+1e-9:
		// A pre-allocating engine reserves its share of the whole GPU when it starts, and
		// refuses to start where less is free: copies that time-slice a GPU cannot all start, which
		// matters more than how much of its own share it fills.
		f.Verdict = VerdictTight
		f.Reason = preallocatedOnShared(req, avail, mem.PreallocateFraction, t)
	case req > th.Tight*capacity:
		f.Verdict = VerdictTight
		f.Reason = fmt.Sprintf("needs %s of the usable memory (over %.0f%%)", percentBeside(100*req/capacity, th.Tight*100), th.Tight*100)
	case t.timeSliced > 1 && float64(t.timeSliced)*req > th.Tight*capacity:
		// Time-slicing isolates no memory: the pods that share the GPU run out of it together.
		f.Verdict = VerdictTight
		f.Reason = fmt.Sprintf("needs %.1f GiB alone, but %d pods %s and %d such pods need %.1f GiB together of %s's %.1f GiB usable: %s",
			req/memory.GiB, t.timeSliced, t.sharingEach(), t.timeSliced, float64(t.timeSliced)*req/memory.GiB, t.name, capacity/memory.GiB, t.isolatesNone())
	case t.timeSliced > 1 && req < th.OversizedMemoryFraction*t.share*capacity:
		// It pays its share of the GPU: oversized when it uses less than the threshold of that.
		f.Verdict = VerdictOversized
		how := "time-slice"
		if t.mps {
			how = "MPS"
		}
		f.Reason = fmt.Sprintf("needs %s of the %s of %s's memory its %s share pays for (under %.0f%%)",
			percentBeside(100*req/(t.share*capacity), th.OversizedMemoryFraction*100), fraction(t.share), t.name, how, th.OversizedMemoryFraction*100)
	case float64(mem.GPUs) < t.gpus && !t.mig:
		f.Verdict = VerdictOversized
		f.Reason = fmt.Sprintf("uses %d of the %s GPUs it is given", mem.GPUs, trimNum(t.gpus))
	case util < th.OversizedMemoryFraction && t.timeSliced == 0: // a time-sliced pod's was judged on its share
		f.Verdict = VerdictOversized
		pct, limit := percentBeside(util*100, th.OversizedMemoryFraction*100), th.OversizedMemoryFraction*100
		if t.slice { // not "NVIDIA L4 (1/8 slice)'s memory"
			f.Reason = fmt.Sprintf("needs %s of the memory of %s, under %.0f%%", pct, t.name, limit)
		} else {
			f.Reason = fmt.Sprintf("needs %s of %s's memory (under %.0f%%)", pct, t.name, limit)
		}
	case t.share > 0 && measuredUtil != nil && *measuredUtil/t.share < th.OversizedUtilization:
		// A pod on a shared GPU gets its share of its time: judged against that share.
		f.Verdict = VerdictOversized
		f.Reason = fmt.Sprintf("measured mean GPU utilization %.1f%%, under %.0f%% of the %s of the GPU's time its share pays for",
			*measuredUtil, th.OversizedUtilization, fraction(t.share))
	case t.share > 0:
		f.Verdict = VerdictFits
	case measuredUtil != nil && *measuredUtil < th.OversizedUtilization:
		f.Verdict = VerdictOversized
		f.Reason = fmt.Sprintf("measured mean GPU utilization %.0f%% (under %.0f%%)", *measuredUtil, th.OversizedUtilization)
	default:
		f.Verdict = VerdictFits
	}
	return f
}

// preallocatedOnShared says why a pre-allocating engine (vLLM's gpu_memory_utilization) cannot
// run in every pod that time-slices a GPU: it reserves that share of the GPU's whole memory when
// it starts, and refuses to start where less is free ("Free memory on device ... on startup is
// less than desired GPU memory utilization", vllm/v1/worker/gpu_worker.py), so n copies start
// only when n × the share is at most the GPU. It names the share that lets them, and whether the
// need (req, of avail usable) fits in it.
func preallocatedOnShared(req, avail, fraction float64, t gpuTarget) string {
	n := t.timeSliced
	most := math.Floor(100/float64(n)) / 100 // 0.33 for 3
	why := fmt.Sprintf("the engine reserves %.2f of each GPU's memory when it starts (gpu_memory_utilization) and refuses to start where less is free: of %d pods that %s, a second such server does not start (%d × %.2f is over the whole %s)",
		fraction, n, t.sharingEach(), n, fraction, t.device())
	if req <= most*avail {
		return fmt.Sprintf("%s; at --gpu-memory-utilization %.2f or less each takes %.1f GiB, which holds the %.1f GiB it needs", why, most, most*avail/memory.GiB, req/memory.GiB)
	}
	return fmt.Sprintf("%s; at %.2f, the most that lets %d start, each would have %.1f GiB, less than the %.1f GiB it needs: give it GPUs of its own", why, most, n, most*avail/memory.GiB, req/memory.GiB)
}

// judgeSGLang judges a server inferred from SGLang's arguments by SGLang's rules
// (profiles.SGLangServer): its static share is StaticFraction of the memory free once the CUDA
// context is up; it starts when the weights leave that share room for KV cache, and its pool
// of KV cache tokens is what they leave. A pool shorter than the context still starts: SGLang
// then refuses the longer prompts, which is a tight fit, not a failure.
func judgeSGLang(mem *memory.Estimate, t gpuTarget, th Thresholds) *Fit {
	req, avail := mem.PerGPUBytes, t.usableBytes
	reqGiB, availGiB := round2(req/memory.GiB), round2(avail/memory.GiB)
	u := round3(req / avail)
	f := &Fit{Source: "estimate", RequiredGiBPerGPU: &reqGiB, AvailableGiBPerGPU: &availGiB, MemoryUtilization: &u}
	frac, share := sglangShare(mem, t)
	static, kv := mem.StaticBytes(), mem.Term(memory.TermKVCache)
	fixed := static - kv
	// The pool is what the weights leave of the share, in tokens, or --max-total-tokens when
	// that is less.
	perToken := kv / float64(max(1, mem.KVTokens))
	capped := mem.SGLang.MaxTotalTokens > 0 && float64(mem.SGLang.MaxTotalTokens)*perToken < share-fixed
	pool := int(math.Max(0, share-fixed) / perToken)
	shareOf := fmt.Sprintf("SGLang's static share of %s (%.3f of the %.1f GiB free once the CUDA context is up: %.1f GiB)", t.name, frac, (avail-mem.Term(memory.TermContext))/memory.GiB, share/memory.GiB)
	switch {
	case float64(mem.GPUs) > t.gpus+1e-9:
		f.Verdict = VerdictDoesNotFit
		f.Reason = fmt.Sprintf("the workload spans %d GPUs; %s gives it %s", mem.GPUs, t.name, trimNum(t.gpus))
	case fixed >= share:
		f.Verdict = VerdictDoesNotFit
		f.Reason = fmt.Sprintf("the weights take %.1f GiB per GPU, all of %s: no room is left for KV cache, and SGLang stops at start (\"Not enough memory\")", fixed/memory.GiB, shareOf)
	case pool < 256:
		f.Verdict = VerdictDoesNotFit
		f.Reason = fmt.Sprintf("the weights take %.1f GiB per GPU of %s, leaving room for %d tokens of KV cache: SGLang starts with a pool too small to serve a prompt", fixed/memory.GiB, shareOf, pool)
	case capped && mem.SGLang.MaxTotalTokens < mem.KVTokens:
		n := mem.SGLang.MaxTotalTokens
		f.Verdict = VerdictTight
		f.Reason = fmt.Sprintf("--max-total-tokens caps SGLang's KV cache pool at %d tokens, fewer than the %d of one full context: SGLang starts and refuses longer prompts (set --context-length %d or less to say so)", n, mem.KVTokens, n)
	case static > share:
		f.Verdict = VerdictTight
		f.Reason = fmt.Sprintf("the weights leave %.1f GiB of %s for KV cache, about %d tokens, fewer than the %d of one full context: SGLang starts and refuses longer prompts (an estimate; set --context-length %d or less to say so, or use a GPU with more memory)", (share-fixed)/memory.GiB, shareOf, pool, mem.KVTokens, pool/256*256)
	case t.timeSliced > 1:
		f.Verdict = VerdictTight
		f.Reason = fmt.Sprintf("SGLang takes %.3f of the memory free when it starts; %d pods %s, so those that start later get less: %s", frac, t.timeSliced, t.sharingEach(), t.isolatesNone())
	case static > th.Tight*share:
		f.Verdict = VerdictTight
		f.Reason = fmt.Sprintf("the weights and one full context's KV cache take %s of %s (over %.0f%%)", percentBeside(100*static/share, th.Tight*100), shareOf, th.Tight*100)
	case float64(mem.GPUs) < t.gpus && !t.mig:
		f.Verdict = VerdictOversized
		f.Reason = fmt.Sprintf("uses %d of the %s GPUs it is given", mem.GPUs, trimNum(t.gpus))
	default:
		f.Verdict = VerdictFits
	}
	return f
}

// sglangShare is the fraction of a GPU of t an SGLang server takes as its static share, and the
// bytes of the share.
func sglangShare(mem *memory.Estimate, t gpuTarget) (float64, float64) {
	frac := mem.SGLang.StaticFraction(t.usableBytes/memory.MiB, mem.TensorParallel)
	return frac, frac * (t.usableBytes - mem.Term(memory.TermContext))
}

// holdsWithHeadroom says whether each GPU of t holds the workload with the tight-fit headroom:
// its whole need, or, for an SGLang server, what its static share keeps.
func holdsWithHeadroom(mem *memory.Estimate, t gpuTarget, th Thresholds) bool {
	if mem.SGLang != nil {
		_, share := sglangShare(mem, t)
		return mem.StaticBytes() <= th.Tight*share
	}
	return mem.PerGPUBytes <= th.Tight*t.usableBytes
}

// fraction writes a share of a GPU as 1/n where it is one ("1/2"), else as a decimal.
func fraction(f float64) string {
	if n := math.Round(1 / f); math.Abs(n*f-1) < 1e-9 {
		return fmt.Sprintf("1/%.0f", n)
	}
	return trimNum(f)
}

// migSlice finds the smallest MIG slice of the GPU that holds a single-GPU workload with the
// tight-fit headroom, by the share of the GPU it takes.
func migSlice(mem *memory.Estimate, g catalog.GPU, th Thresholds) (catalog.MIGProfile, bool) {
	if mem.GPUs != 1 {
		return catalog.MIGProfile{}, false
	}
	var best catalog.MIGProfile
	found := false
	for _, m := range g.MIG {
		if m.ComputeSevenths == 7 {
			continue // the whole GPU
		}
		if mem.PerGPUBytes > th.Tight*m.MemoryGB*1e9 {
			continue
		}
		if !found || MIGShare(g, m) < MIGShare(g, best) {
			best, found = m, true
		}
	}
	return best, found
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }
func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// breakdown lists the terms of an estimate in GiB.
func breakdown(mem *memory.Estimate) []MemoryTerm {
	out := make([]MemoryTerm, 0, len(mem.Terms))
	for _, t := range mem.Terms {
		out = append(out, MemoryTerm{Name: t.Name, GiB: round2(t.Bytes / memory.GiB), Source: t.Source})
	}
	return out
}

// otherArchitecture returns the architectures (catalog.GPU.Family) of the GPU a measured profile
// was captured on and of the GPU it is judged on, when they differ and both are known; "" when
// not. The same workloads peaked at the same MiB on an H100 and an H200, both Hopper
// (docs/memory-model.md, "Measured on an H200"): the caching allocator asks for the same
// blocks whatever the card's size. Another architecture loads other kernels, and cuBLAS and
// cuDNN pick other algorithms with other workspaces, which no capture here has measured.
func (p *Pricer) otherArchitecture(prof *profiles.Profile, on catalog.GPU) (measured, target string) {
	m := prof.Measured
	if m == nil || m.GPUName == "" {
		return "", ""
	}
	keys := catalog.GPUKeysForName(m.GPUName)
	if len(keys) == 0 {
		return "", ""
	}
	g, ok := p.Catalog.GPU(keys[0])
	if !ok || g.Family() == "" || on.Family() == "" || g.Family() == on.Family() {
		return "", ""
	}
	return g.Family(), on.Family()
}

// nearTheLine says a verdict could turn on a peak measured on another architecture: it fits, or
// it needs under 125% of the memory the GPU has usable.
func nearTheLine(f *Fit) bool {
	switch f.Verdict {
	case VerdictUnknown:
		return false
	case VerdictDoesNotFit:
		return f.MemoryUtilization != nil && *f.MemoryUtilization < 1.25
	}
	return true
}

// Assess fills the fit and the recommendations of a priced (or unpriced) resource whose
// workload profile is known.
func (p *Pricer) Assess(e *Estimate, r parser.Resource, prof *profiles.Profile, th Thresholds) {
	r = pricedAs(e, r)
	var mem *memory.Estimate
	if prof.Inferred != "" {
		defer func() {
			if e.Fit != nil {
				inferredFit(e.Fit, r, prof, mem)
			}
			// Sized for one sequence, the profile cannot say how small a GPU the traffic
			// allows: only the purchase options stand.
			e.Recommendations = slices.DeleteFunc(e.Recommendations, func(rec Recommendation) bool {
				return rec.Kind == RecSmallerInstance || rec.Kind == RecMIG
			})
		}()
	}
	e.Workload = &WorkloadInfo{Type: prof.Workload.Type, Interruptible: prof.Workload.Interruptible, LatencySensitive: prof.Workload.LatencySensitive}
	t, reason := p.targetOf(e, &r, prof)
	declared := prof
	if reason == "" {
		prof = servedOn(prof, t)
	}
	mem, err := memory.Of(prof)
	if err != nil {
		e.Fit = &Fit{Verdict: VerdictUnknown, Reason: err.Error()}
		return
	}
	if reason != "" {
		e.Fit = &Fit{Verdict: VerdictUnknown, Reason: reason, Breakdown: breakdown(mem)}
		return
	}
	var util *float64
	if m := prof.Measured; m != nil && m.GPUUtilization != nil {
		u := m.GPUUtilization.Mean
		util = &u
	}
	f := judge(mem, t, util, th)
	f.Breakdown = breakdown(mem)
	if mem.Measured {
		peak := round2(mem.PerGPUBytes / memory.GiB)
		f.Measured = &MeasuredSignal{GPUUtilizationMean: util, PeakMemoryGiB: peak}
	}
	// A workload on a whole GPU, or on a MIG slice larger than it needs, is told the smallest
	// slice that holds it, unless the service it runs on cannot partition GPUs.
	if prof.Workload.Type != profiles.TypeTraining && !t.slice && r.NoMIG == "" {
		if s, ok := migSlice(mem, t.gpu, th); ok && (!t.mig || MIGShare(t.gpu, s) < t.slicePaid()) {
			f.MIGSlice = s.Profile
		}
	}
	e.Fit = f
	for _, n := range mem.Notes {
		addNote(e, n)
	}
	if mem.Measured && nearTheLine(f) {
		if on, target := p.otherArchitecture(prof, t.gpu); on != "" {
			addNote(e, fmt.Sprintf("the measured peak is from an %s (%s); the %s is %s, which loads other kernels and library workspaces: capture the profile on one for a firm figure", prof.Measured.GPUName, on, t.gpu.Name, target))
		}
	}
	if e.MonthlyCost != nil {
		e.Recommendations = p.recommend(e, r, declared, mem, t, th)
	}
}

// servedOn is the profile as it runs on the target: a server inferred from `vllm serve` without
// --max-num-batched-tokens takes the limit vLLM's API server picks on the target's GPU.
func servedOn(prof *profiles.Profile, t gpuTarget) *profiles.Profile {
	in := prof.Inference
	if in == nil || !in.VLLMServer || in.MaxBatchedTokens != 0 {
		return prof
	}
	n := vllmServerBatchedTokens(t)
	if n == memory.DefaultMaxBatchedTokens {
		return prof
	}
	q, qi := *prof, *in
	qi.MaxBatchedTokens = n
	q.Inference = &qi
	q.Inferred += fmt.Sprintf(", vLLM's default --max-num-batched-tokens %d on %s (under 70 GiB or an A100)", n, t.name)
	return &q
}

// vllmServerBatchedTokens is the max_num_batched_tokens vLLM's API server takes on the target
// when not told one: it reads the device's total memory and name (a MIG slice's or vGPU's own).
func vllmServerBatchedTokens(t gpuTarget) int {
	if t.usableBytes < 70*memory.GiB || strings.Contains(strings.ToLower(t.gpu.Name), "a100") {
		return memory.SmallGPUMaxBatchedTokens
	}
	return memory.DefaultMaxBatchedTokens
}

// inferredFit qualifies a verdict judged on a profile inferred from a serving engine's command
// line (profiles.FromVLLM, profiles.FromSGLang; an SGLang server was judged by judgeSGLang): it sizes what the engine needs to start, one sequence of its
// longest length, and the engine fills the rest of its share with KV cache for the sequences it
// serves at once. So a model that fits with room to spare fits; it is not called oversized, and
// no smaller GPU or MIG slice is suggested from it.
func inferredFit(f *Fit, r parser.Resource, prof *profiles.Profile, mem *memory.Estimate) {
	f.InferredFrom = prof.Inferred
	if r.Pod != nil && r.Pod.Serving != nil {
		s := r.Pod.Serving
		f.InferredFrom += fmt.Sprintf(" (container %s, %s:%d)", s.Container, s.Source.File, s.Source.Line)
	}
	engine, sized := "vLLM", "for one sequence of --max-model-len, what vLLM needs to start: the rest of its share holds KV cache for more"
	sglang := prof.Inference != nil && prof.Inference.SGLang != nil
	if sglang {
		engine, sized = "SGLang", "for its weights and one sequence of its context, what its static share must hold: SGLang fills the rest of that share with KV cache for more"
	}
	switch {
	case f.Verdict == VerdictOversized:
		f.Verdict = VerdictFits
	case sglang:
		// judgeSGLang judged it by SGLang's rules, which count no allocator margin and say
		// how many tokens the pool holds.
	case f.Verdict == VerdictDoesNotFit && f.RequiredGiBPerGPU != nil && f.AvailableGiBPerGPU != nil && prof.Inference != nil:
		// A pre-allocating engine allocates its KV cache in one piece: the allocator margin
		// the estimate adds may not be spent. A need within it is tight, not a certain failure.
		var margin float64
		for _, t := range f.Breakdown {
			if t.Name == memory.TermFragment {
				margin = t.GiB
			}
		}
		share := *f.AvailableGiBPerGPU * prof.Inference.GPUMemoryUtilization
		if *f.RequiredGiBPerGPU-margin <= share {
			f.Verdict = VerdictTight
			f.Reason += fmt.Sprintf("; without the %.1f GiB allocator margin it needs %.1f GiB, within the share: vLLM may start, with little KV cache to spare", margin, *f.RequiredGiBPerGPU-margin)
		}
	}
	if f.Verdict == VerdictDoesNotFit && !sglang && f.AvailableGiBPerGPU != nil && prof.ContextFlag != "" && mem != nil {
		if n, ok := longestContext(mem, prof, *f.AvailableGiBPerGPU); ok && n < prof.Inference.MaxSequenceLength {
			f.MaxContextTokens = n
			f.Reason += fmt.Sprintf("; its share holds the KV cache of about %d tokens, not %d: vLLM refuses to start a context longer than its KV cache, so set %s %d or less (an estimate)", n, prof.Inference.MaxSequenceLength, prof.ContextFlag, n)
		}
	}
	f.MIGSlice = ""
	if f.Verdict == VerdictUnknown {
		return // nothing was judged on it: the reason says why
	}
	f.Reason = strings.TrimPrefix(f.Reason+"; sized, with no profile attached, from the "+engine+" server's arguments "+sized+", so whether the GPU is larger than the traffic needs is not judged (attach a profile with inference.batch_size for that)", "; ")
}

// longestContext is the longest context whose KV cache fits a pre-allocating server's share of
// each GPU beside everything else the estimate holds, as vLLM computes it at start (the share
// less the weights, the activations of a profiling pass and non-torch memory, divided by the KV
// cache of a token, where layers with a sliding window hold no more than the window's tokens):
// the allocator margin is left out, since the KV cache is one allocation. It is rounded down to
// a multiple of 256 tokens, and false when not even 256 tokens fit.
func longestContext(mem *memory.Estimate, prof *profiles.Profile, availableGiB float64) (int, bool) {
	kv := mem.Term(memory.TermKVCache)
	rest := mem.PerGPUBytes - kv - mem.Term(memory.TermFragment)
	free := availableGiB*memory.GiB*prof.Inference.GPUMemoryUtilization - rest
	n := memory.KVTokensWithin(prof.Model, prof.Inference, kv, free) / 256 * 256
	return n, n >= 256
}

// percentBeside formats a percentage compared with a threshold: whole percents, or one decimal
// where rounding would make it read as the threshold itself ("39.8%", not "40% ... under 40%").
func percentBeside(p, threshold float64) string {
	if fmt.Sprintf("%.0f", p) == fmt.Sprintf("%.0f", threshold) {
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", p)
}
