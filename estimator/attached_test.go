package estimator

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/estimator/memory"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// GKE's reservations: the docs' n1-standard-4 example leaves 3.92 CPUs; a 15 GiB machine keeps
// 25 % of 4 GiB + 20 % of 4 + 10 % of 7 = 2.5 GiB and 100 MiB for eviction; a machine under
// 1 GiB keeps 255 MiB.
func TestGKEAllocatable(t *testing.T) {
	for _, tc := range []struct {
		vcpus          int
		mem            float64
		wantCPU, wantM float64
	}{
		{4, 15, 3.92, 15 - 2.5 - 100.0/1024},
		{1, 3.75, 0.94, 3.75 - 0.9375 - 100.0/1024},
		{96, 624, 96 - 0.06 - 0.01 - 0.01 - 92*0.0025, 624 - (1 + 0.8 + 0.8 + 6.72 + 496*0.02) - 100.0/1024},
		{1, 0.6, 0.94, 0.6 - 355.0/1024},
	} {
		cpu, mem := gkeAllocatable(tc.vcpus, tc.mem)
		if math.Abs(cpu-tc.wantCPU) > 1e-9 || math.Abs(mem-tc.wantM) > 1e-9 {
			t.Errorf("gkeAllocatable(%d, %g) = %g, %g; want %g, %g", tc.vcpus, tc.mem, cpu, mem, tc.wantCPU, tc.wantM)
		}
	}
}

// A pod that names a GPU GCP only attaches to N1 VMs gets an N1 node sized for it, priced as the
// VM plus its GPUs (sustained-use discount included for a full month on demand).
func TestAttachedGPUNodes(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	cases := []struct {
		name  string
		pod   parser.PodGPUs
		typ   string // a named node type
		opt   parser.PurchaseOption
		hours float64
		// want: the VM, its GPUs and the monthly cost, from the catalog's us-central1 rows
		wantVM    string
		wantAcc   parser.Accelerator
		wantCents int64
		wantNote  string
	}{
		{
			name: "T4 with 6 CPUs and 20 GiB: n1-standard-4 is too small, n1-highmem-8 dearer",
			pod:  parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"nvidia-tesla-t4"}, CPU: 6, MemoryGiB: 20},
			opt:  parser.OnDemand, hours: 730, wantVM: "n1-standard-8", wantAcc: parser.Accelerator{Type: "nvidia-tesla-t4", Count: 1},
			wantCents: expectCents(t, "511", "0.379998", "1", "0.35", "1"), // 730 h × 70 % (sustained use)
			wantNote:  "hold the pod's 6 CPUs and 20 GiB",
		},
		{
			name: "V100 with 12 CPUs: one V100 allows 12 vCPUs, GKE keeps some, so two V100s",
			pod:  parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"nvidia-tesla-v100"}, CPU: 12},
			opt:  parser.Spot, hours: 730, wantVM: "n1-standard-16", wantAcc: parser.Accelerator{Type: "nvidia-tesla-v100", Count: 2},
			// Its 12 CPUs are 75 % of the n1-standard-16: it pays that share, not half (its GPUs).
			wantCents: expectCents(t, "547.5", "0.26804", "1", "0.992", "2"),
			wantNote:  "take 75% of n1-standard-16, more than its GPUs' 50%",
		},
		{
			name: "three T4s and no requests: four on the smallest N1, three quarters paid",
			pod:  parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 3, GPUNames: []string{"nvidia-tesla-t4"}},
			opt:  parser.OnDemand, hours: 100, wantVM: "n1-standard-1", wantAcc: parser.Accelerator{Type: "nvidia-tesla-t4", Count: 4},
			wantCents: expectCents(t, "75", "0.0475", "1", "0.35", "4"), // 100 h, no discount below a quarter month
			wantNote:  "requests no CPU or memory",
		},
		{
			name: "a named n1-standard-64 with one V100 needs eight attached",
			pod:  parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"nvidia-tesla-v100"}},
			typ:  "n1-standard-64", opt: parser.OnDemand, hours: 100, wantVM: "n1-standard-64", wantAcc: parser.Accelerator{Type: "nvidia-tesla-v100", Count: 8},
			wantCents: expectCents(t, "12.5", "3.039984", "1", "2.48", "8"), // an eighth of the node, 100 h
			wantNote:  "the node pool's own GPU count is not in the manifests",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := tc.pod
			r := parser.Resource{Address: "Deployment/a/b", Provider: "gcp", Region: "us-central1", InstanceType: tc.typ, Quantity: 1,
				PurchaseOption: tc.opt, HoursPerMonth: tc.hours, Kind: parser.KindKubernetes, Pod: &pod}
			e := p.Estimate(r)
			m, ok := e.Monthly()
			if !ok {
				t.Fatalf("unpriced: %s", *e.UnpricedReason)
			}
			if e.InstanceType != tc.wantVM || m.Cents() != tc.wantCents || !e.PriceEstimated {
				t.Errorf("got %s at %s (estimated %v), want %s at %d cents", e.InstanceType, m.Decimal(2), e.PriceEstimated, tc.wantVM, tc.wantCents)
			}
			if !strings.Contains(strings.Join(e.Notes, "\n"), tc.wantNote) || !strings.Contains(strings.Join(e.Notes, "\n"), tc.wantAcc.Type) {
				t.Errorf("notes %q lack %q", e.Notes, tc.wantNote)
			}
			if acc, _ := p.Catalog.Instance("gcp", tc.wantAcc.Type); e.GPU == nil || e.GPU.Key != acc.GPU || e.GPU.Count != float64(pod.Requested) {
				t.Errorf("GPU %+v, want %d of the attached %s", e.GPU, pod.Requested, tc.wantAcc.Type)
			}
			if !strings.Contains(strings.Join(e.Notes, "\n"), strconv.Itoa(tc.wantAcc.Count)+"× "+tc.wantAcc.Type) {
				t.Errorf("notes %q do not name %d× %s", e.Notes, tc.wantAcc.Count, tc.wantAcc.Type)
			}
		})
	}
}

// What cannot be an N1 node with attached GPUs says why instead of pricing something else.
func TestAttachedGPUsUnpriced(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	for _, tc := range []struct {
		name string
		pod  parser.PodGPUs
		typ  string
		want string
	}{
		{"an N1 type and no GPU named", parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1}, "n1-standard-8", "name the GPU with the cloud.google.com/gke-accelerator label"},
		{"an L4 is never attached to N1", parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"nvidia-l4"}}, "n1-standard-8", "not a GPU GCP attaches to N1"},
		{"five T4s: N1 takes at most four", parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 5, GPUNames: []string{"nvidia-tesla-t4"}}, "", "holds 5 nvidia.com/gpu"},
		{"a T4 pod needing 100 CPUs", parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"nvidia-tesla-t4"}, CPU: 100}, "", "room for its 100 CPUs"},
		{"a named N1 whose allocatable CPU is short of the pod's", parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"nvidia-tesla-t4"}, CPU: 8}, "n1-standard-8", "n1-standard-8 cannot hold a pod that requests 1 GPU and 8 CPUs: GKE leaves 7.91 CPUs and 26.5 GiB of it allocatable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := tc.pod
			r := parser.Resource{Address: "Deployment/a/b", Provider: "gcp", Region: "us-central1", InstanceType: tc.typ, Quantity: 1,
				PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes, Pod: &pod}
			e := p.Estimate(r)
			if e.UnpricedReason == nil || !strings.Contains(*e.UnpricedReason, tc.want) {
				t.Fatalf("got %s %v, want unpriced with %q", e.InstanceType, e.UnpricedReason, tc.want)
			}
		})
	}
}

// A node chosen for a pod must hold its CPU and memory: one L4 and 8 CPUs is a g6.2xlarge on
// AWS (the g6.xlarge has 4 vCPUs); with 40 GiB it is a g6.4xlarge (64 GiB), the smallest
// single-L4 type with the memory, and four such pods fill one g6.12xlarge (192 GiB for four
// L4s), cheaper than four g6.4xlarge; on GKE a pod asking for all 4 of a g2-standard-4's vCPUs
// does not fit in what GKE leaves allocatable, so it gets a g2-standard-8.
func TestChosenNodeHoldsPodRequests(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	for _, tc := range []struct {
		provider, region string
		pods             int
		pod              parser.PodGPUs
		want             string
	}{
		{"aws", "us-east-1", 1, parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"l4"}}, "g6.xlarge"},
		{"aws", "us-east-1", 1, parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"l4"}, CPU: 8}, "g6.2xlarge"},
		{"aws", "us-east-1", 1, parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"l4"}, MemoryGiB: 40}, "g6.4xlarge"},
		{"aws", "us-east-1", 4, parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"l4"}, MemoryGiB: 40}, "g6.12xlarge"},
		{"gcp", "us-central1", 1, parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"nvidia-l4"}, CPU: 3.5}, "g2-standard-4"},
		{"gcp", "us-central1", 1, parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"nvidia-l4"}, CPU: 4}, "g2-standard-8"},
	} {
		pod := tc.pod
		r := parser.Resource{Address: "Deployment/a/b", Provider: tc.provider, Region: tc.region, Quantity: tc.pods, PurchaseOption: parser.OnDemand,
			Kind: parser.KindKubernetes, Pod: &pod}
		if e := p.Estimate(r); e.InstanceType != tc.want {
			t.Errorf("%s %d× %+v: got %s (%v), want %s", tc.provider, tc.pods, tc.pod, e.InstanceType, e.UnpricedReason, tc.want)
		}
	}
}

// The memory fit of an N1 VM is judged against its attached GPUs: a Terraform instance with a
// guest_accelerator, and a GKE node chosen for a pod (it said "n1-standard-8 has no GPU model").
func TestFitOnAttachedGPUs(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	prof := mustProfile(t, smallInference) // 17.9 GiB a GPU: more than a T4's 15 usable
	for name, r := range map[string]parser.Resource{
		"terraform": {Address: "google_compute_instance.x", Provider: "gcp", Region: "us-central1", InstanceType: "n1-standard-8", Quantity: 1,
			PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform, Accelerators: []parser.Accelerator{{Type: "nvidia-tesla-t4", Count: 1}}},
		"pod": {Address: "Deployment/a/b", Provider: "gcp", Region: "us-central1", Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes,
			Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"nvidia-tesla-t4"}}},
	} {
		e := p.Estimate(r)
		p.Assess(&e, r, prof, DefaultThresholds)
		if e.Fit == nil || e.Fit.Verdict != VerdictDoesNotFit || !strings.Contains(e.Fit.Reason, "NVIDIA T4") {
			t.Errorf("%s: fit %+v", name, e.Fit)
		}
	}
}

// GCP refuses GPUs attached where they cannot go; valid combinations say nothing.
func TestAttachProblem(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	for _, tc := range []struct {
		vm   string
		acc  parser.Accelerator
		want string
	}{
		{"n1-standard-8", parser.Accelerator{Type: "nvidia-tesla-t4", Count: 1}, ""},
		{"n1-standard-96", parser.Accelerator{Type: "nvidia-tesla-v100", Count: 8}, ""},
		{"n1-standard-64", parser.Accelerator{Type: "nvidia-tesla-t4", Count: 1}, "at most 48 vCPUs and 312 GB of memory (n1-standard-64 has 64 and 240)"},
		{"n1-standard-16", parser.Accelerator{Type: "nvidia-tesla-v100", Count: 1}, "with 1 of them an N1 VM has at most 12 vCPUs"},
		{"n1-standard-8", parser.Accelerator{Type: "nvidia-tesla-t4", Count: 3}, "GCP attaches 1, 2 or 4 nvidia-tesla-t4 GPUs to an N1 VM, not 3"},
		{"n1-standard-8", parser.Accelerator{Type: "nvidia-l4", Count: 1}, "does not attach nvidia-l4 to N1 VMs"},
		{"g2-standard-8", parser.Accelerator{Type: "nvidia-l4", Count: 1}, ""}, // G2 carries its L4: pricing handles the block
	} {
		r := parser.Resource{Address: "google_compute_instance.x", Provider: "gcp", InstanceType: tc.vm, Accelerators: []parser.Accelerator{tc.acc}}
		if got := p.AttachProblem(r); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s + %d× %s: %q, want %q", tc.vm, tc.acc.Count, tc.acc.Type, got, tc.want)
		}
	}
}

// A pod pays the largest share of its node it takes: GPUs, CPU or memory. One GPU and 48 CPUs on
// a p4d.24xlarge (8 GPUs, 96 vCPUs) leaves room for one more such pod: half the node, not an
// eighth. A pod asking for more than the node has cannot be scheduled there.
func TestPodPaysItsLargestShare(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	price := func(cpu, mem float64) Estimate {
		r := parser.Resource{Address: "Deployment/a/b", Provider: "aws", Region: "us-east-1", InstanceType: "p4d.24xlarge", Quantity: 1,
			PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes, Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, CPU: cpu, MemoryGiB: mem}}
		return p.Estimate(r)
	}
	gpuOnly, byCPU, byMem := price(8, 64), price(48, 64), price(8, 576)
	g, _ := gpuOnly.Monthly()
	c, _ := byCPU.Monthly()
	m, _ := byMem.Monthly()
	if g.Cents() != expectCents(t, "91.25", "21.957642", "1") || c.Cents() != expectCents(t, "365", "21.957642", "1") || m.Cents() != expectCents(t, "365", "21.957642", "1") {
		t.Fatalf("gpu share %s, cpu share %s, memory share %s", g.Decimal(2), c.Decimal(2), m.Decimal(2))
	}
	if !strings.Contains(strings.Join(byCPU.Notes, "|"), "take 50% of p4d.24xlarge, more than its GPUs' 12.5%") || byCPU.Pod.NodeShare != 0.5 || gpuOnly.Pod.NodeShare != 0 {
		t.Errorf("notes %q, node share %g / %g", byCPU.Notes, byCPU.Pod.NodeShare, gpuOnly.Pod.NodeShare)
	}
	if e := price(128, 0); e.UnpricedReason == nil || !strings.Contains(*e.UnpricedReason, "a pod requests 1 GPU and 128 CPUs but p4d.24xlarge has 96 vCPUs") {
		t.Errorf("128 CPUs on a 96-vCPU node: %v", e.UnpricedReason)
	}
}

// int8Llama8B needs 10.7 GiB a GPU: one T4 (15 GiB usable) holds it with headroom.
const int8Llama8B = `workload: {type: inference}
model: {preset: llama-3.1-8b, precision: int8}
inference: {batch_size: 1, max_sequence_length: 4096}
`

// Oversized N1 VMs, GKE pods and accelerator-optimized machines are offered N1 VMs with fewer or
// cheaper attached GPUs (they were offered only G2 and A2 machine types, which cost more), within
// GCP's limits per VM size.
func TestAttachedGPURecommendations(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	prof := mustProfile(t, int8Llama8B)
	n1 := func(vm string, acc string, count int) parser.Resource {
		return parser.Resource{Address: "google_compute_instance.x", Provider: "gcp", Region: "us-central1", InstanceType: vm, Quantity: 1,
			PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform, Accelerators: []parser.Accelerator{{Type: acc, Count: count}}}
	}
	assess := func(r parser.Resource) Estimate {
		e := p.Estimate(r)
		p.Assess(&e, r, prof, DefaultThresholds)
		return e
	}

	// n1-standard-8 + 4 T4 ($0.379998 + 4 × $0.35 an hour, 730 h, 30 % sustained use: $909.58)
	// for a workload that uses one: the same VM with one T4, (0.379998 + 0.35) × 511 = $373.03.
	e := assess(n1("n1-standard-8", "nvidia-tesla-t4", 4))
	got, ok := rec(e, RecSmallerInstance)
	if e.Fit.Verdict != VerdictOversized || !ok || got.Node() != "n1-standard-8 with 1× nvidia-tesla-t4" ||
		money.Micros(got.MonthlyCost).Decimal(2) != "373.03" || money.Micros(got.MonthlySaving).Decimal(2) != "536.55" ||
		!got.PriceEstimated || !strings.Contains(got.Reason, "1× n1-standard-8 with 1× nvidia-tesla-t4 holds the workload") {
		t.Fatalf("n1-standard-8 + 4 T4: fit %s, %+v", e.Fit.Verdict, e.Recommendations)
	}

	// 64 vCPUs take at least 4 T4s (GCP allows 48 vCPUs with one or two): every alternative
	// offered is a combination GCP accepts. (The cheapest here is a g2-standard-4; the N1
	// alternatives are looked at directly.)
	r := n1("n1-standard-64", "nvidia-tesla-v100", 8)
	e = p.Estimate(r)
	every := func(in catalog.Instance) (gpuTarget, bool) { return gpuTarget{gpus: in.GPUCount}, true }
	offered := map[parser.Accelerator]bool{}
	for _, c := range p.attachedAlternatives(&e, r, 1, func(float64) int { return 1 }, every) {
		a := c.accelerators[0]
		offered[a] = true
		if problem := p.AttachProblem(n1("n1-standard-64", a.Type, a.Count)); problem != "" {
			t.Errorf("offered %d× %s, which GCP refuses: %s", a.Count, a.Type, problem)
		}
	}
	if !offered[parser.Accelerator{Type: "nvidia-tesla-t4", Count: 4}] || offered[parser.Accelerator{Type: "nvidia-tesla-t4", Count: 1}] ||
		offered[parser.Accelerator{Type: "nvidia-tesla-v100", Count: 8}] || !offered[parser.Accelerator{Type: "nvidia-tesla-p100", Count: 4}] {
		t.Errorf("n1-standard-64 alternatives: %v", offered)
	}

	// A GKE pod on a V100 node (n1-standard-8 for its 6 CPUs and 20 GiB) fits a T4 node of the
	// same size: 2 pods × (0.379998 + 0.35) × 511 = $746.06, saving 2 × 2.48 × 511 − 2 × 0.35 × 511.
	pod := parser.Resource{Address: "Deployment/a/b", Provider: "gcp", Region: "us-central1", Quantity: 2, PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes,
		Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, CPU: 6, MemoryGiB: 20, GPUNames: []string{"nvidia-tesla-v100"}}}
	e = assess(pod)
	got, ok = rec(e, RecSmallerInstance)
	if e.InstanceType != "n1-standard-8" || !ok || got.Node() != "n1-standard-8 with 1× nvidia-tesla-t4" ||
		money.Micros(got.MonthlyCost).Decimal(2) != "746.06" || money.Micros(got.MonthlySaving).Decimal(2) != "2176.86" ||
		!strings.Contains(got.Reason, "n1-standard-8 with 1× nvidia-tesla-t4 nodes hold the pods") {
		t.Fatalf("V100 pod on %s: %+v", e.InstanceType, e.Recommendations)
	}

	// A pod already on the cheapest T4 node is not told to move to the same node.
	pod.Pod = &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, CPU: 6, MemoryGiB: 20, GPUNames: []string{"nvidia-tesla-t4"}}
	e = assess(pod)
	if got, ok := rec(e, RecSmallerInstance); ok && got.Node() == "n1-standard-8 with 1× nvidia-tesla-t4" {
		t.Fatalf("T4 pod told to move to its own node: %+v", got)
	}

	// A G2 machine's CPUs and memory come with its GPU: the N1 VM offered instead gives each GPU at
	// least as many vCPUs and as much memory. g2-standard-4 (4 vCPUs, 16 GB, $0.706832/h, no sustained-use
	// discount: $515.99) → n1-highmem-4 (4 vCPUs, 26 GB; n1-standard-4 has only 15 GB) with one T4:
	// (0.236606 + 0.35) × 511 = $299.76, saving $216.23.
	g2 := parser.Resource{Address: "google_compute_instance.g", Provider: "gcp", Region: "us-central1", InstanceType: "g2-standard-4", Quantity: 1,
		PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform}
	e = assess(g2)
	got, ok = rec(e, RecSmallerInstance)
	if !ok || got.Node() != "n1-highmem-4 with 1× nvidia-tesla-t4" || money.Micros(got.MonthlyCost).Decimal(2) != "299.76" ||
		money.Micros(got.MonthlySaving).Decimal(2) != "216.23" || !strings.Contains(got.Reason, "n1-highmem-4 gives each GPU at least the 4 vCPUs and 16 GB g2-standard-4 does") {
		t.Fatalf("g2-standard-4: %+v", e.Recommendations)
	}

	// Every N1 host offered for an accelerator-optimized machine gives each GPU as many vCPUs and as
	// much memory as the machine gives each of its own, and is allowed with its GPU count; an A3
	// machine (26 vCPUs and 234 GB per GPU) needs more than any N1 VM GCP attaches GPUs to.
	vms := map[string]catalog.Instance{}
	for _, in := range p.Catalog.AllInstances(parser.GCP) {
		vms[in.Type] = in
	}
	for _, host := range []string{"a2-highgpu-1g", "g2-standard-8", "g2-standard-48", "a3-highgpu-8g"} {
		r := parser.Resource{Address: "google_compute_instance.h", Provider: "gcp", Region: "us-central1", InstanceType: host, Quantity: 1,
			PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform}
		e := p.Estimate(r)
		alts := p.attachedAlternatives(&e, r, 1, func(float64) int { return 1 }, every)
		if host == "a3-highgpu-8g" && len(alts) > 0 || host != "a3-highgpu-8g" && len(alts) == 0 {
			t.Errorf("%s: %d N1 alternatives", host, len(alts))
		}
		for _, c := range alts {
			vm, h, n := vms[c.est.InstanceType], vms[host], float64(c.accelerators[0].Count)
			if float64(vm.VCPU)*h.GPUCount < float64(h.VCPU)*n || vm.MemoryGiB*h.GPUCount < h.MemoryGiB*n || p.AttachProblem(parser.Resource{Provider: "gcp", InstanceType: vm.Type, Accelerators: c.accelerators}) != "" {
				t.Errorf("%s offered %s (%d vCPUs, %g GB) with %v", host, vm.Type, vm.VCPU, vm.MemoryGiB, c.accelerators)
			}
		}
	}
}

// `gpuguard fit` on GCP lists the attachable GPUs on the cheapest N1 VM, each count GCP allows:
// n1-standard-1 ($0.0475/h) + one T4 ($0.35/h), 730 h at 30 % sustained use: 0.3975 × 511 =
// $203.12, an estimate (the T4 price is undated). Named types list only themselves.
func TestFitListsAttachedGPUs(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	prof := mustProfile(t, int8Llama8B)
	mem, err := memory.Of(prof)
	if err != nil {
		t.Fatal(err)
	}
	rows := p.FitInstances(prof, mem, nil, parser.GCP, "us-central1", parser.OnDemand, DefaultThresholds)
	counts := map[string][]int{}
	var t4 *InstanceFit
	for i, r := range rows {
		if len(r.Accelerators) == 0 {
			continue
		}
		a := r.Accelerators[0]
		counts[a.Type] = append(counts[a.Type], a.Count)
		if r.InstanceType != "n1-standard-1" {
			t.Errorf("%s with %v: not the cheapest N1 VM", r.InstanceType, r.Accelerators)
		}
		if a.Type == "nvidia-tesla-t4" && a.Count == 1 {
			t4 = &rows[i]
		}
	}
	if t4 == nil || t4.Verdict != VerdictFits || t4.GPU != "NVIDIA T4" || money.Micros(*t4.MonthlyCost).Decimal(2) != "203.12" || !t4.PriceEstimated ||
		!strings.Contains(t4.Reason, "attach 1× nvidia-tesla-t4") {
		t.Fatalf("T4 row: %+v", t4)
	}
	if !slices.Equal(counts["nvidia-tesla-v100"], []int{1, 2, 4, 8}) || !slices.Equal(counts["nvidia-tesla-t4"], []int{1, 2, 4}) {
		t.Errorf("attached rows: %v", counts)
	}
	for _, r := range p.FitInstances(prof, mem, []string{"g2-standard-4"}, parser.GCP, "us-central1", parser.OnDemand, DefaultThresholds) {
		if len(r.Accelerators) > 0 || r.InstanceType != "g2-standard-4" {
			t.Errorf("named type listed %+v", r)
		}
	}
}
