package estimator

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/estimator/memory"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/profiles"
)

func mustProfile(t *testing.T, src string) *profiles.Profile {
	t.Helper()
	p, err := profiles.Parse([]byte("apiVersion: gpuguard.dev/v1\nkind: WorkloadProfile\nmetadata: {name: t}\n"+src), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVerdicts(t *testing.T) {
	a100 := gpuTarget{name: "A100 80GB", usableBytes: 80 * memory.GiB, gpus: 1}
	est := func(gib float64, gpus int) *memory.Estimate {
		return &memory.Estimate{PerGPUBytes: gib * memory.GiB, GPUs: gpus}
	}
	low := 12.0
	cases := []struct {
		name    string
		mem     *memory.Estimate
		target  gpuTarget
		util    *float64
		verdict string
		reason  string
	}{
		{"fits", est(50, 1), a100, nil, VerdictFits, ""},
		{"tight above 90%", est(75, 1), a100, nil, VerdictTight, "94%"},
		{"does not fit", est(81, 1), a100, nil, VerdictDoesNotFit, "needs 81.0 GiB"},
		{"oversized memory", est(20, 1), a100, nil, VerdictOversized, "25%"},
		{"oversized utilization", est(50, 1), a100, &low, VerdictOversized, "utilization 12%"},
		{"oversized GPU count", est(50, 1), gpuTarget{name: "8×A100", usableBytes: 80 * memory.GiB, gpus: 8}, nil, VerdictOversized, "uses 1 of the 8"},
		{"too many GPUs", est(50, 16), gpuTarget{name: "8×A100", usableBytes: 80 * memory.GiB, gpus: 8}, nil, VerdictDoesNotFit, "spans 16 GPUs"},
		{"pre-allocation leaves too little", &memory.Estimate{PerGPUBytes: 75 * memory.GiB, GPUs: 1, PreallocateFraction: 0.9}, a100, nil, VerdictDoesNotFit, "gpu_memory_utilization 0.90"},
	}
	for _, c := range cases {
		f := judge(c.mem, c.target, c.util, DefaultThresholds)
		if f.Verdict != c.verdict || !strings.Contains(f.Reason, c.reason) {
			t.Errorf("%s: %s (%s), want %s containing %q", c.name, f.Verdict, f.Reason, c.verdict, c.reason)
		}
	}
}

const smallInference = `workload: {type: inference}
model: {preset: llama-3.1-8b, precision: bf16}
inference: {batch_size: 1, max_sequence_length: 4096}
`

func rec(es Estimate, kind string) (Recommendation, bool) {
	for _, r := range es.Recommendations {
		if r.Kind == kind {
			return r, true
		}
	}
	return Recommendation{}, false
}

func TestSmallerInstanceRecommendation(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	r := parser.Resource{Address: "aws_instance.x", Provider: "aws", Region: "us-east-1", InstanceType: "p4d.24xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform}
	e := p.Estimate(r)
	p.Assess(&e, r, mustProfile(t, smallInference), DefaultThresholds)
	if e.Fit.Verdict != VerdictOversized || !strings.Contains(e.Fit.Reason, "uses 1 of the 8 GPUs") {
		t.Fatalf("fit = %+v", e.Fit)
	}
	got, ok := rec(e, RecSmallerInstance)
	// g6.xlarge (one L4, 22.5 GiB usable) at 0.8048/h is the cheapest type holding 17.9 GiB with
	// 10% headroom: 0.8048 × 730 = 587.504; the p4d costs 21.957642 × 730 = 16029.07866, so the
	// saving is 15441.57466, shown as 15441.57.
	if !ok || got.InstanceType != "g6.xlarge" || money.Micros(got.MonthlyCost).Decimal(2) != "587.50" || money.Micros(got.MonthlySaving).Decimal(2) != "15441.57" {
		t.Fatalf("smaller instance = %+v (all: %+v)", got, e.Recommendations)
	}
}

// A pod whose claims or labels require a compute capability is told no cheaper type below it:
// the same server on an A100 that an L4 (8.9) holds is told the L4 with no floor and with 8.0,
// and above 8.9 an H100's share (a GPU of p5.48xlarge, the price of p5.4xlarge), not the L4.
func TestSmallerInstanceKeepsTheComputeFloor(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	for _, tc := range []struct {
		floor *parser.ComputeBound
		want  string
	}{
		{nil, "g6.xlarge"},
		{capability(8, 0, false), "g6.xlarge"},
		{capability(8, 9, true), "p5.48xlarge"},
		{capability(9, 0, false), "p5.48xlarge"},
	} {
		r := parser.Resource{Address: "Deployment/ml/x", Provider: "aws", Region: "us-east-1", InstanceType: "p4d.24xlarge", Quantity: 1, PurchaseOption: parser.OnDemand,
			Kind: parser.KindKubernetes, Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 8, GPUComputeFloor: tc.floor}}
		e := p.Estimate(r)
		p.Assess(&e, r, mustProfile(t, smallInference), DefaultThresholds)
		if got, ok := rec(e, RecSmallerInstance); !ok || got.InstanceType != tc.want {
			t.Errorf("floor %v: smaller instance %+v, want %s (all: %+v)", tc.floor, got, tc.want, e.Recommendations)
		}
	}
}

func TestSpotAndCommitmentRecommendations(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	// Interruptible LoRA training on demand: spot. g5.xlarge has no spot row: on-demand × 0.40.
	r := parser.Resource{Address: "aws_instance.ft", Provider: "aws", Region: "us-east-1", InstanceType: "g5.xlarge", Quantity: 2, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform}
	e := p.Estimate(r)
	p.Assess(&e, r, mustProfile(t, `workload: {type: training, interruptible: true}
model: {preset: llama-2-7b}
training: {method: lora, micro_batch_size: 1, sequence_length: 1024, activation_checkpointing: true}
`), DefaultThresholds)
	spot, ok := rec(e, RecSpot)
	if !ok || money.Micros(spot.MonthlyCost).Decimal(2) != "587.50" || !spot.PriceEstimated {
		t.Fatalf("spot = %+v (%+v)", spot, e.Recommendations)
	}
	if _, ok := rec(e, RecCommitment); ok {
		t.Fatal("an interruptible job was told to commit for a year")
	}
	// Always-on serving on GCP: the 1- and 3-year commitments from the regional table
	// (a2-highgpu-1g us-central1: 2.314207 and 1.285708 per hour).
	r = parser.Resource{Address: "google_compute_instance.s", Provider: "gcp", Region: "us-central1", InstanceType: "a2-highgpu-1g", Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform}
	e = p.Estimate(r)
	p.Assess(&e, r, mustProfile(t, `workload: {type: inference, latency_sensitive: true}
model: {preset: llama-3.1-8b}
inference: {batch_size: 8, max_sequence_length: 8192}
`), DefaultThresholds)
	var commits []string
	for _, x := range e.Recommendations {
		if x.Kind == RecCommitment {
			commits = append(commits, x.PurchaseOption+"="+money.Micros(x.MonthlyCost).Decimal(2))
		}
	}
	if strings.Join(commits, ",") != "reserved_3y=938.57,reserved_1y=1689.37" {
		t.Fatalf("commitments = %v (%+v)", commits, e.Recommendations)
	}
}

// bertPods assesses 2 one-GPU pods on p4de.24xlarge (onePerNode: why they keep one to a node)
// serving BERT-large, which fits a 1g.10gb MIG slice.
func bertPods(t *testing.T, p *Pricer, onePerNode string) Estimate {
	t.Helper()
	r := parser.Resource{Address: "Deployment/a/b", Provider: "aws", Region: "us-east-1", InstanceType: "p4de.24xlarge", Quantity: 2, PurchaseOption: parser.OnDemand,
		Kind: parser.KindKubernetes, Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1}}
	if onePerNode != "" {
		r.Pod.MaxPerNode, r.Pod.MaxPerNodeWhy = 1, onePerNode
	}
	e := p.Estimate(r)
	p.Assess(&e, r, mustProfile(t, `workload: {type: inference}
model: {preset: bert-large, precision: fp16}
inference: {batch_size: 8, max_sequence_length: 512}
`), DefaultThresholds)
	if e.Fit.MIGSlice != "1g.10gb" {
		t.Fatalf("fit = %+v", e.Fit)
	}
	return e
}

func TestMIGRecommendationForPods(t *testing.T) {
	e := bertPods(t, &Pricer{Catalog: catalog.MustDefault()}, "")
	mig, ok := rec(e, RecMIG)
	// Two pods each paying 1/8 of a p4de: 2 × 27.44705 × 730 / 8 = 5009.09; on 1g.10gb slices
	// (1/7 of a GPU each) they pay a seventh of that.
	cur, _ := e.Monthly()
	if !ok || cur.Decimal(2) != "5009.09" || money.Micros(mig.MonthlyCost).Decimal(2) != "715.58" {
		t.Fatalf("mig = %+v, current %s", mig, cur)
	}
}

func TestMeasuredPeakOverridesEstimate(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	r := parser.Resource{Address: "aws_instance.m", Provider: "aws", Region: "us-east-1", InstanceType: "g6e.xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform}
	e := p.Estimate(r)
	p.Assess(&e, r, mustProfile(t, `workload: {type: inference}
model: {preset: llama-3.1-8b}
inference: {batch_size: 1, max_sequence_length: 2048}
measured: {gpu_name: NVIDIA L40S, gpu_count: 1, memory_total_mib: 46068, peak_memory_used_mib: 41000, gpu_utilization: {mean: 80, p50: 82, p95: 99}}
`), DefaultThresholds)
	if e.Fit.Source != "measured" || *e.Fit.RequiredGiBPerGPU != 40.04 || e.Fit.Verdict != VerdictFits {
		t.Fatalf("fit = %+v", e.Fit)
	}
}

// A vGPU slice (here AWS g6f: an eighth, a quarter or half of an L4) is one GPU to the workload,
// with the slice's memory: the verdict is the memory's, not "spans 1 GPUs; gives it 0.25".
func TestVGPUSliceFit(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	prof := mustProfile(t, int8Llama8B) // 11.2 GiB
	for typ, want := range map[string]string{
		"g6f.2xlarge": "does_not_fit: needs 11.2 GiB per GPU; NVIDIA L4 (1/4 slice) has 5.6 GiB usable",
		"g6f.4xlarge": "tight: needs 99% of the usable memory (over 90%)",
	} {
		r := parser.Resource{Address: "aws_instance.x", Provider: "aws", Region: "us-east-1", InstanceType: typ, Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform}
		e := p.Estimate(r)
		p.Assess(&e, r, prof, DefaultThresholds)
		if got := e.Fit.Verdict + ": " + e.Fit.Reason; got != want || e.Fit.MIGSlice != "" {
			t.Errorf("%s: %s (MIG %q), want %s", typ, got, e.Fit.MIGSlice, want)
		}
	}
	for f, want := range map[float64]string{0.125: "NVIDIA L4 (1/8 slice)", 0.1667: "NVIDIA L4 (1/6 slice)", 0.3333: "NVIDIA L4 (1/3 slice)", 0.4: "NVIDIA L4 (0.4 of one)"} {
		if got := sliceName(f, "NVIDIA L4"); got != want {
			t.Errorf("sliceName(%g) = %q, want %q", f, got, want)
		}
	}
}

// A pod on a slice node: the device plugin advertises the slice as one GPU, so a pod asking for
// one is scheduled there and pays the whole node (it read "requests 1 GPUs but has 0.125").
func TestPodOnVGPUSlice(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	r := parser.Resource{Address: "Deployment/a/b", Provider: "aws", Region: "us-east-1", InstanceType: "g6f.xlarge", Quantity: 2, PurchaseOption: parser.OnDemand,
		Kind: parser.KindKubernetes, Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1}}
	e := p.Estimate(r)
	node := p.Estimate(parser.Resource{Address: "n", Provider: "aws", Region: "us-east-1", InstanceType: "g6f.xlarge", Quantity: 2, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform})
	if e.MonthlyCost == nil || node.MonthlyCost == nil || *e.MonthlyCost != *node.MonthlyCost || e.GPU == nil || e.GPU.Count != 0.125 {
		t.Fatalf("pod on g6f.xlarge: cost %v (two nodes %v), GPU %+v, unpriced %v", e.MonthlyCost, node.MonthlyCost, e.GPU, e.UnpricedReason)
	}
	r.Pod = &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 2}
	if e := p.Estimate(r); e.UnpricedReason == nil || !strings.Contains(*e.UnpricedReason, "cannot be scheduled there") {
		t.Fatalf("two GPUs on a slice: %+v", e)
	}
}

// A single-GPU workload is offered a slice when one holds it; one that spans GPUs is not.
func TestSliceRecommendations(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	r := parser.Resource{Address: "aws_instance.x", Provider: "aws", Region: "us-east-1", InstanceType: "g5.2xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform}
	small := mustProfile(t, `workload: {type: inference}
model: {preset: gpt2-xl, precision: fp16}
inference: {batch_size: 1, max_sequence_length: 1024}
`)
	e := p.Estimate(r)
	p.Assess(&e, r, small, DefaultThresholds)
	got, ok := rec(e, RecSmallerInstance)
	in, _ := p.Catalog.Instance("aws", got.InstanceType)
	if !ok || in.GPUCount >= 1 || !strings.Contains(got.Reason, "of 11.2 GiB per GPU") && !strings.Contains(got.Reason, "of 5.6 GiB per GPU") {
		t.Fatalf("small workload on g5.2xlarge: %+v", e.Recommendations)
	}
	sharded := mustProfile(t, `workload: {type: training}
model: {preset: gpt2, precision: bf16}
training: {optimizer: adamw, micro_batch_size: 1, sequence_length: 1024, activation_checkpointing: true, fsdp: full_shard, data_parallel: 2}
`)
	r.InstanceType = "p4d.24xlarge"
	e = p.Estimate(r)
	p.Assess(&e, r, sharded, DefaultThresholds)
	if _, ok := rec(e, RecSmallerInstance); !ok || *e.Fit.RequiredGiBPerGPU > 3 {
		t.Fatalf("gpt2 across 2 GPUs: fit %+v, %+v", e.Fit, e.Recommendations)
	}
	for _, rc := range e.Recommendations {
		if in, _ := p.Catalog.Instance("aws", rc.InstanceType); rc.Kind == RecSmallerInstance && in.GPUCount < 1 {
			t.Fatalf("a workload across 2 GPUs offered a slice: %+v", rc)
		}
	}
}

// A node group whose GPUs are split into MIG slices runs a copy of the workload on each slice:
// the fit is judged against the slice's memory, no MIG slice is suggested on top of it, and the
// smaller instances searched must run a copy for every slice. AKS's GPU-instance profiles name
// the compute share and get the smallest slice with it.
func TestNodeGroupPartitions(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	gpu := func(key string) catalog.GPU {
		g, ok := p.Catalog.GPU(key)
		if !ok {
			t.Fatalf("no GPU %s in the catalog", key)
		}
		return g
	}
	for _, c := range []struct {
		gpu, partition, want string
	}{
		{"a100-40gb", "MIG1g", "1g.5gb"},
		{"a100-80gb", "MIG1g", "1g.10gb"},
		{"a100-80gb", "MIG3g", "3g.40gb"},
		{"h100-80gb", "mig7g", "7g.80gb"},
		{"a100-80gb", "1g.20gb", "1g.20gb"},
		{"a100-80gb", "MIG5g", ""},
		{"a100-80gb", "MIG1gx", ""},
		{"a100-40gb", "1g.10gb", "1g.10gb"},
		{"a100-40gb", "1g.20gb", ""},
	} {
		m, ok := partitionSlice(gpu(c.gpu), c.partition)
		if ok != (c.want != "") || m.Profile != c.want {
			t.Errorf("%s on %s: %q (found %v), want %q", c.partition, c.gpu, m.Profile, ok, c.want)
		}
	}

	aks := func(partition string) (Estimate, parser.Resource) {
		r := parser.Resource{Address: "azurerm_kubernetes_cluster_node_pool.mig", Provider: parser.Azure, Region: "eastus", InstanceType: "Standard_NC24ads_A100_v4",
			Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform, GPUPartition: partition}
		e := p.Estimate(r)
		p.Assess(&e, r, mustProfile(t, smallInference), DefaultThresholds)
		return e, r
	}
	// copies is how many copies of the workload one instance runs.
	copies := func(e Estimate, r parser.Resource) int {
		target, _ := p.targetOf(&e, &r, mustProfile(t, smallInference))
		return copiesPerInstance(r, target)
	}
	// llama-3.1-8b in bf16 needs about 17.9 GiB: not a 1g.10gb slice (9.3 GiB usable) ...
	e, _ := aks("MIG1g")
	if e.Fit.Verdict != VerdictDoesNotFit || !strings.Contains(e.Fit.Reason, "NVIDIA A100 80GB MIG 1g.10gb has 9.3 GiB usable") {
		t.Errorf("MIG1g: %+v", e.Fit)
	}
	// ... but a 3g.40gb one, without a MIG slice suggested for the whole GPU it no longer has.
	e, r := aks("MIG3g")
	if e.Fit.Verdict != VerdictFits || *e.Fit.AvailableGiBPerGPU != 37.25 || e.Fit.MIGSlice != "" {
		t.Errorf("MIG3g: %+v", e.Fit)
	}
	if _, ok := rec(e, RecMIG); ok {
		t.Errorf("MIG3g: a MIG slice was suggested on a partitioned GPU: %+v", e.Recommendations)
	}
	if n := copies(e, r); n != 2 {
		t.Errorf("MIG3g: %d copies an instance, want 2 (two 3g.40gb slices on its one A100)", n)
	}
	e, _ = aks("MIG5g")
	if e.Fit.Verdict != VerdictUnknown || e.Fit.Reason != "MIG partition MIG5g does not exist on NVIDIA A100 80GB" {
		t.Errorf("MIG5g: %+v", e.Fit)
	}
	// Without a partition the same pool gives the workload the whole GPU.
	e, _ = aks("")
	if *e.Fit.AvailableGiBPerGPU < 70 || e.Fit.MIGSlice == "" {
		t.Errorf("no partition: %+v", e.Fit)
	}

	// A GKE pool of two a3-highgpu-8g split into 3g.40gb slices: sixteen copies a node.
	gke := parser.Resource{Address: "google_container_node_pool.h100", Provider: parser.GCP, Region: "us-central1", InstanceType: "a3-highgpu-8g",
		Quantity: 2, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform, GPUPartition: "3g.40gb"}
	ge := p.Estimate(gke)
	if n := copies(ge, gke); n != 16 {
		t.Errorf("a3-highgpu-8g in 3g.40gb slices: %d copies an instance, want 16", n)
	}

	// Seven copies of a 7B model in int4 (about 6.5 GiB) on the 1g.10gb slices of one A100 80GB:
	// the cheapest whole GPU that holds one copy, a T4 VM at $383.98* a month, costs more than
	// the pool ($2,681.29*) once it must run all seven, so no smaller instance is offered.
	r = parser.Resource{Address: "azurerm_kubernetes_cluster_node_pool.mig", Provider: parser.Azure, Region: "eastus", InstanceType: "Standard_NC24ads_A100_v4",
		Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform, GPUPartition: "MIG1g"}
	e = p.Estimate(r)
	p.Assess(&e, r, mustProfile(t, `workload: {type: inference}
model: {preset: mistral-7b, precision: int4}
inference: {batch_size: 4, max_sequence_length: 2048, kv_cache_precision: fp8}
`), DefaultThresholds)
	if e.Fit.Verdict != VerdictFits {
		t.Fatalf("7B int4 on 1g.10gb: %+v", e.Fit)
	}
	if sm, ok := rec(e, RecSmallerInstance); ok {
		t.Errorf("a smaller instance offered for one copy of the seven the slices run: %+v", sm)
	}
}

// int4Inference is a 7B model in int4: about 6.5 GiB a copy, which a 1g.10gb slice holds.
const int4Inference = `workload: {type: inference}
model: {preset: mistral-7b, precision: int4}
inference: {batch_size: 4, max_sequence_length: 2048, kv_cache_precision: fp8}
`

// A workload already on MIG slices is told a smaller slice that holds it, priced on the same
// GPUs, and one that does not fit its slice is offered a larger slice as its cheapest fit when
// that costs less than the cheapest whole GPU that holds it.
func TestResizedMIGSlices(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	monthly := func(e Estimate) money.Micros { // compared to the cent: each is rounded to one
		t.Helper()
		m, ok := e.Monthly()
		if !ok {
			t.Fatalf("%s is unpriced: %v", e.Address, e.UnpricedReason)
		}
		return m
	}

	// Pods: three replicas on 3g.40gb slices of p4de.24xlarge (half a GPU each: memory 40 of 80)
	// that fit 1g.10gb (a seventh) pay 2/7 of what they pay now.
	pod := func(slice string, replicas int) (Estimate, parser.Resource) {
		r := parser.Resource{Address: "Deployment/ml/embed", Provider: parser.AWS, Region: "us-east-1", InstanceType: "p4de.24xlarge",
			Quantity: replicas, PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes,
			Pod: &parser.PodGPUs{Resource: "nvidia.com/mig-" + slice, Requested: 1, MIGProfile: slice}}
		return p.Estimate(r), r
	}
	e, r := pod("3g.40gb", 3)
	if e.GPU == nil || e.GPU.MIGProfile != "3g.40gb" {
		t.Fatalf("the pod's GPU info does not name its slice: %+v", e.GPU)
	}
	p.Assess(&e, r, mustProfile(t, int4Inference), DefaultThresholds)
	if e.Fit.Verdict != VerdictOversized || e.Fit.MIGSlice != "1g.10gb" {
		t.Fatalf("3g.40gb for 6.5 GiB: %+v", e.Fit)
	}
	mig, ok := rec(e, RecMIG)
	if !ok {
		t.Fatalf("no MIG recommendation: %+v", e.Recommendations)
	}
	want := monthly(e).Mul(2.0 / 7)
	if d := money.Micros(mig.MonthlyCost) - want; d < -10_000 || d > 10_000 || mig.MIGProfile != "1g.10gb" || mig.InstanceType != "p4de.24xlarge" {
		t.Errorf("MIG recommendation %+v, want 1g.10gb on p4de.24xlarge at %s", mig, want)
	}
	if !strings.Contains(mig.Reason, "its pods need no 3g.40gb slice: a 1g.10gb one (0.1429 of a NVIDIA A100 80GB) holds each") {
		t.Errorf("reason %q", mig.Reason)
	}
	// The smallest slice is not told a smaller one.
	e, r = pod("1g.10gb", 3)
	p.Assess(&e, r, mustProfile(t, int4Inference), DefaultThresholds)
	if e.Fit.MIGSlice != "" {
		t.Errorf("1g.10gb was told %s", e.Fit.MIGSlice)
	}
	if _, ok := rec(e, RecMIG); ok {
		t.Errorf("a MIG recommendation on the smallest slice: %+v", e.Recommendations)
	}
	// An 8B model in bf16 (17.9 GiB) does not fit 1g.10gb; 3g.40gb holds it, but half an
	// A100 80GB costs more than a g5.xlarge's A10G, which stays the cheapest fit.
	e, r = pod("1g.10gb", 1)
	p.Assess(&e, r, mustProfile(t, smallInference), DefaultThresholds)
	if e.Fit.Verdict != VerdictDoesNotFit || e.Fit.CheapestFit == nil || e.Fit.CheapestFit.Kind == RecMIG {
		t.Errorf("8B bf16 on 1g.10gb: %+v, cheapest fit %+v", e.Fit, e.Fit.CheapestFit)
	}

	// A node pool of one Standard_NC24ads_A100_v4 split into seven 1g.10gb slices runs seven
	// copies. An 8B model in bf16 fits none of them; split into 3g.40gb (two a GPU) four
	// instances run the seven copies, for less than seven whole GPUs of any kind.
	aks := parser.Resource{Address: "azurerm_kubernetes_cluster_node_pool.mig", Provider: parser.Azure, Region: "eastus", InstanceType: "Standard_NC24ads_A100_v4",
		Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform, GPUPartition: "MIG1g"}
	e = p.Estimate(aks)
	if e.GPU == nil || e.GPU.MIGProfile != "1g.10gb" {
		t.Fatalf("the pool's GPU info does not name its partition: %+v", e.GPU)
	}
	node := monthly(e)
	p.Assess(&e, aks, mustProfile(t, smallInference), DefaultThresholds)
	fit := e.Fit.CheapestFit
	if e.Fit.Verdict != VerdictDoesNotFit || fit == nil {
		t.Fatalf("8B bf16 on MIG1g: %+v", e.Fit)
	}
	if fit.Kind != RecMIG || fit.MIGProfile != "3g.40gb" || money.Micros(fit.MonthlyCost) != node.MulInt(4) || money.Micros(fit.MonthlySaving) != -node.MulInt(3) {
		t.Errorf("cheapest fit %+v, want 4 instances in 3g.40gb slices at %s", fit, node.MulInt(4))
	}
	if fit.Reason != "partitioned into 3g.40gb MIG slices (2 a GPU instead of 7), 4 instances run the 7 copies that 1 instance runs now" {
		t.Errorf("reason %q", fit.Reason)
	}

	// A GKE pool of two a3-highgpu-8g in 3g.40gb slices runs 32 copies; in 1g.10gb slices
	// (seven a GPU) one node runs them all, for half the month.
	gke := parser.Resource{Address: "google_container_node_pool.h100", Provider: parser.GCP, Region: "us-central1", InstanceType: "a3-highgpu-8g",
		Quantity: 2, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform, GPUPartition: "3g.40gb"}
	e = p.Estimate(gke)
	current := monthly(e)
	p.Assess(&e, gke, mustProfile(t, int4Inference), DefaultThresholds)
	if e.Fit.Verdict != VerdictOversized || e.Fit.MIGSlice != "1g.10gb" {
		t.Fatalf("6.5 GiB on 3g.40gb: %+v", e.Fit)
	}
	mig, ok = rec(e, RecMIG)
	if !ok || money.Micros(mig.MonthlyCost) != current/2 || money.Micros(mig.MonthlySaving) != current/2 || mig.MIGProfile != "1g.10gb" {
		t.Fatalf("MIG recommendation %+v (of %+v), want one node at %s", mig, e.Recommendations, current/2)
	}
	if mig.Reason != "partitioned into 1g.10gb MIG slices (7 a GPU instead of 2), 1 instance runs the 32 copies that 2 instances run now" {
		t.Errorf("reason %q", mig.Reason)
	}
	// One node in 3g.40gb slices runs 16 copies; seven 1g.10gb slices a GPU still need the
	// node: nothing to save, nothing recommended, though the slice is named.
	gke.Quantity = 1
	e = p.Estimate(gke)
	p.Assess(&e, gke, mustProfile(t, int4Inference), DefaultThresholds)
	if _, ok := rec(e, RecMIG); ok || e.Fit.MIGSlice != "1g.10gb" {
		t.Errorf("one node: slice %q, recommendations %+v", e.Fit.MIGSlice, e.Recommendations)
	}
}

// A SageMaker resource is recommended SageMaker's own ml. types, of the families SageMaker
// offers, marked estimated as its own price is; spot only where its service offers spot (not a
// real-time endpoint, NoSpot); and a commitment named as the SageMaker Savings Plan it is.
func TestSageMakerRecommendationsStayOnSageMaker(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	endpoint := parser.Resource{Address: "aws_sagemaker_endpoint_configuration.x", Provider: parser.AWS, Region: "us-east-1", InstanceType: "ml.p4d.24xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform, NoSpot: true}
	batch := mustProfile(t, `workload: {type: batch, interruptible: true}
model: {preset: llama-3.1-8b, precision: bf16}
inference: {batch_size: 1, max_sequence_length: 4096}
`)
	e := p.Estimate(endpoint)
	p.Assess(&e, endpoint, batch, DefaultThresholds)
	// The same workload on EC2 is told g6.xlarge (TestSmallerInstanceRecommendation): on
	// SageMaker the same machine is ml.g6.xlarge, at g6.xlarge's EC2 rate (0.8048 × 730).
	got, ok := rec(e, RecSmallerInstance)
	if !ok || got.InstanceType != "ml.g6.xlarge" || money.Micros(got.MonthlyCost).Decimal(2) != "587.50" || !got.PriceEstimated {
		t.Fatalf("smaller instance = %+v (all: %+v)", got, e.Recommendations)
	}
	if spot, ok := rec(e, RecSpot); ok {
		t.Fatalf("a real-time endpoint, which has no spot capacity, was told spot: %+v", spot)
	}
	// Without NoSpot (a HyperPod group may run on spot) the interruptible workload gets spot,
	// on the same ml. type.
	group := endpoint
	group.NoSpot = false
	e = p.Estimate(group)
	p.Assess(&e, group, batch, DefaultThresholds)
	if spot, ok := rec(e, RecSpot); !ok || spot.InstanceType != "ml.p4d.24xlarge" || !spot.PriceEstimated {
		t.Fatalf("spot = %+v (all: %+v)", spot, e.Recommendations)
	}

	// Always-on serving: SageMaker Savings Plans, priced at EC2's commitment rates.
	serving := mustProfile(t, smallInference)
	e = p.Estimate(endpoint)
	p.Assess(&e, endpoint, serving, DefaultThresholds)
	commit, ok := rec(e, RecCommitment)
	if !ok || !commit.PriceEstimated || !strings.Contains(commit.Reason, "SageMaker Savings Plan") {
		t.Fatalf("commitment = %+v (all: %+v)", commit, e.Recommendations)
	}

	// The families SageMaker does not offer are never recommended: a workload that fits an
	// L4 vGPU slice is sent to a whole ml. GPU, never to g6f.
	tiny := mustProfile(t, `workload: {type: inference}
model: {preset: gpt2, precision: bf16}
inference: {batch_size: 1, max_sequence_length: 1024}
`)
	small := endpoint
	small.InstanceType = "ml.g5.xlarge"
	e = p.Estimate(small)
	p.Assess(&e, small, tiny, DefaultThresholds)
	for _, x := range e.Recommendations {
		if x.Kind == RecSmallerInstance && (!strings.HasPrefix(x.InstanceType, "ml.") || !sageMakerFamilies[instanceFamily(strings.TrimPrefix(x.InstanceType, "ml."))]) {
			t.Fatalf("recommended %s, which SageMaker does not offer (all: %+v)", x.InstanceType, e.Recommendations)
		}
	}
	ec2 := small
	ec2.InstanceType = "g5.xlarge"
	e2 := p.Estimate(ec2)
	p.Assess(&e2, ec2, tiny, DefaultThresholds)
	if got, ok := rec(e2, RecSmallerInstance); !ok || !strings.HasPrefix(got.InstanceType, "g6f.") {
		t.Fatalf("on EC2 the same workload should go to a g6f slice, which makes the SageMaker case above meaningful: %+v", e2.Recommendations)
	}
}

// A service that gives its users no way to partition GPUs (NoMIG: a SageMaker real-time
// endpoint, Vertex AI prediction, an Azure ML managed online deployment) is never told a MIG
// slice, neither in its fit nor as a recommendation; the same workload on the same machine as a
// plain instance is, which makes the absence meaningful.
func TestNoMIGWhereTheServiceCannotPartition(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	serving := mustProfile(t, int4Inference)
	ec2 := parser.Resource{Address: "aws_instance.x", Provider: parser.AWS, Region: "us-east-1", InstanceType: "p4d.24xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform}
	e := p.Estimate(ec2)
	p.Assess(&e, ec2, serving, DefaultThresholds)
	if _, ok := rec(e, RecMIG); !ok || e.Fit.MIGSlice == "" {
		t.Fatalf("on EC2 the workload should be told a MIG slice: slice %q, %+v", e.Fit.MIGSlice, e.Recommendations)
	}
	for _, r := range []parser.Resource{
		{Address: "aws_sagemaker_endpoint_configuration.x", Provider: parser.AWS, Region: "us-east-1", InstanceType: "ml.p4d.24xlarge", NoMIG: "a SageMaker real-time endpoint"},
		{Address: "aws_instance.y", Provider: parser.AWS, Region: "us-east-1", InstanceType: "p4d.24xlarge", NoMIG: "a test service"},
		{Address: "google_vertex_ai_deployment_resource_pool.x", Provider: parser.GCP, Region: "us-central1", InstanceType: "a2-highgpu-1g", NoMIG: "Vertex AI prediction"},
	} {
		r.Quantity, r.PurchaseOption, r.Kind = 1, parser.OnDemand, parser.KindTerraform
		e := p.Estimate(r)
		p.Assess(&e, r, serving, DefaultThresholds)
		if e.Fit == nil || e.Fit.Verdict != VerdictOversized {
			t.Fatalf("%s: fit %+v, want oversized (the case the slice would be told for)", r.Address, e.Fit)
		}
		if got, ok := rec(e, RecMIG); ok || e.Fit.MIGSlice != "" {
			t.Errorf("%s: told MIG slice %q, recommendation %+v", r.Address, e.Fit.MIGSlice, got)
		}
		if _, ok := rec(e, RecSmallerInstance); !ok {
			t.Errorf("%s: no smaller instance either: %+v", r.Address, e.Recommendations)
		}
	}
}

// A service that accepts only some of its cloud's sizes (Azure ML managed online endpoints) is
// offered only those: a cheaper size the service does not take is no alternative.
func TestAlternativesStayWithinTheServicesSizes(t *testing.T) {
	head := "gpu,name,vendor,memory_gib,reported_mib,reported_source\n" +
		"a100-80gb,NVIDIA A100 80GB,nvidia,80,81920,test\n" +
		"a10,NVIDIA A10,nvidia,24,23028,test\n"
	instances := "provider,instance_type,kind,gpu,gpu_count,gpu_memory_gib,vcpu,memory_gib\n" +
		"azure,Standard_NC24ads_A100_v4,instance,a100-80gb,1,80,24,220\n" +
		"azure,Standard_NV36ads_A10_v5,instance,a10,1,24,36,440\n" +
		"azure,Standard_NC8ads_A10_v4,instance,a10,1,24,8,55\n"
	prices := "provider,instance_type,region,purchase_option,usd_per_hour,estimated,date,source,basis\n" +
		"azure,Standard_NC24ads_A100_v4,eastus,on_demand,3.673,false,2026-01-01,test,\n" +
		"azure,Standard_NV36ads_A10_v5,eastus,on_demand,3.2,false,2026-01-01,test,\n" +
		"azure,Standard_NC8ads_A10_v4,eastus,on_demand,1.0,false,2026-01-01,test,\n"
	cat, err := catalog.Load(strings.NewReader(instances), strings.NewReader(prices), strings.NewReader(head),
		strings.NewReader("gpu,profile,compute_sevenths,memory_gb,max_per_gpu\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := &Pricer{Catalog: cat}
	for _, tc := range []struct {
		offered, want string
	}{
		{"", "Standard_NC8ads_A10_v4"},
		{parser.AzureMLOnlineSizes, "Standard_NV36ads_A10_v5"},
	} {
		r := parser.Resource{Address: "d", Provider: parser.Azure, Region: "eastus", InstanceType: "Standard_NC24ads_A100_v4", Quantity: 1,
			PurchaseOption: parser.OnDemand, OfferedSizes: tc.offered}
		e := p.Estimate(r)
		p.Assess(&e, r, mustProfile(t, smallInference), DefaultThresholds)
		if got, ok := rec(e, RecSmallerInstance); !ok || got.InstanceType != tc.want {
			t.Errorf("offered %q: smaller instance %+v, want %s (all: %+v)", tc.offered, got, tc.want, e.Recommendations)
		}
	}
}

// A Cloud Run instance names its GPU but no machine type, and Cloud Run's prices are not in the
// catalog: it stays unpriced, but a profile still gets a memory verdict on that GPU (one the
// catalog knows only as a GPU, the RTX PRO 6000, included), with no recommendation and no MIG
// slice, which Cloud Run does not offer.
func TestFitOnGPUsWithoutAMachineType(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	cloudRun := func(acc string) parser.Resource {
		return parser.Resource{Address: "google_cloud_run_v2_service.x", Provider: parser.GCP, Region: "us-central1", Quantity: 1, PurchaseOption: parser.OnDemand,
			Kind: parser.KindTerraform, NoSpot: true, NoMIG: "Cloud Run", Accelerators: []parser.Accelerator{{Type: acc, Count: 1}},
			Unresolved: []parser.Unresolved{{Attribute: "price", Reason: "Cloud Run prices are not in the catalog"}}}
	}
	big := mustProfile(t, `workload: {type: inference}
model: {preset: llama-3.1-70b, precision: bf16}
inference: {batch_size: 1, max_sequence_length: 4096}
`)
	cases := []struct {
		acc, model string
		memGiB     float64
		prof       *profiles.Profile
		verdict    string
	}{
		{"nvidia-l4", "NVIDIA L4", 24, mustProfile(t, smallInference), VerdictFits},
		{"nvidia-l4", "NVIDIA L4", 24, mustProfile(t, int4Inference), VerdictOversized},
		{"nvidia-l4", "NVIDIA L4", 24, big, VerdictDoesNotFit},
		{"nvidia-rtx-pro-6000", "NVIDIA RTX PRO 6000", 96, mustProfile(t, int4Inference), VerdictOversized},
	}
	for _, c := range cases {
		r := cloudRun(c.acc)
		e := p.Estimate(r)
		if e.MonthlyCost != nil || e.UnpricedReason == nil {
			t.Fatalf("%s: priced at %v", c.acc, e.MonthlyCost)
		}
		if e.GPU == nil || e.GPU.Model != c.model || e.GPU.MemoryGiB != c.memGiB {
			t.Fatalf("%s: GPU %+v, want %s with %v GiB", c.acc, e.GPU, c.model, c.memGiB)
		}
		p.Assess(&e, r, c.prof, DefaultThresholds)
		if e.Fit == nil || e.Fit.Verdict != c.verdict {
			t.Errorf("%s: fit %+v, want %s", c.acc, e.Fit, c.verdict)
			continue
		}
		if len(e.Recommendations) != 0 || e.Fit.MIGSlice != "" {
			t.Errorf("%s: recommendations %+v, MIG slice %q on an unpriced Cloud Run instance", c.acc, e.Recommendations, e.Fit.MIGSlice)
		}
	}
}

// podOnSharedGPUs is a Deployment's pod on an AWS node of the instance type, asking for
// nvidia.com/gpu as pod says (its units, how they are shared).
func podOnSharedGPUs(instanceType string, pod parser.PodGPUs) parser.Resource {
	pod.Resource = "nvidia.com/gpu"
	return parser.Resource{Address: "Deployment/a/b", Provider: parser.AWS, Region: "us-east-1", InstanceType: instanceType, Quantity: 1, PurchaseOption: parser.OnDemand,
		Kind: parser.KindKubernetes, Pod: &pod}
}

// NVIDIA's DRA driver shares a claim's GPUs as its configuration says: under MPS with a memory
// limit each pod may allocate only that much of each GPU (it does not fit when it needs more, and
// is told the limit that would hold it), but the limits reserve nothing, so the pods that share
// the GPU may need more than it has together; MPS without a limit isolates nothing, as
// time-slicing; a limit of at least the GPU caps nothing; and a pod's own claim is held to its
// limit too.
func TestClaimMPSSharing(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	measured := func(peakMiB int) *profiles.Profile {
		return mustProfile(t, fmt.Sprintf(`workload: {type: inference}
measured: {gpu_name: NVIDIA L4, gpu_count: 1, memory_total_mib: 23034, peak_memory_used_mib: %d, gpu_utilization: {mean: 60, p50: 60, p95: 80}, duration_seconds: 600, samples: 600, captured_at: "2026-11-02T10:00:00Z"}
`, peakMiB))
	}
	mps := func(limitGiB float64) *parser.ClaimSharing {
		return &parser.ClaimSharing{Claim: "ResourceClaim/a/c", Strategy: parser.SharingMPS, MemoryLimitGiB: limitGiB}
	}
	for _, tc := range []struct {
		name    string
		pods    int // 0: a claim of the pod's own, from a template
		sharing *parser.ClaimSharing
		peakMiB int
		verdict string
		reason  string
		absent  string
		fix     string // the limit that would hold it, "config|limit"; "" when none would
	}{
		{"three under 7 GiB limits, 6 GiB each", 3, mps(7), 6144, VerdictFits, "", "", ""},
		{"four under 7 GiB limits overcommit the L4", 4, mps(7), 6144, VerdictTight,
			"needs 6.0 GiB, within the 7.0 GiB each pod may use (ResourceClaim/a/c's MPS memory limit), but 4 pods share each GPU and 4 such pods need 24.0 GiB together of NVIDIA L4's 22.5 GiB usable: the limits overcommit its memory", "", ""},
		{"a 5 GiB limit holds no 6 GiB workload", 2, mps(5), 6144, VerdictDoesNotFit,
			"needs 6.0 GiB per GPU; an MPS limit of 5 GiB on NVIDIA L4 has 5.0 GiB usable; a limit of 6Gi in ResourceClaim/a/c's MPS configuration would hold it", "but not", "ResourceClaim/a/c|6Gi"},
		{"the limit that would hold it overcommits the GPU for four", 4, mps(5), 6144, VerdictDoesNotFit,
			"a limit of 6Gi in ResourceClaim/a/c's MPS configuration would hold it, but not the 4 pods that share each GPU (24.0 GiB together, of 22.5 GiB usable)", "", ""},
		{"no limit holds more than the GPU", 2, mps(5), 0, VerdictDoesNotFit, "NVIDIA L4's 22.5 GiB usable cannot hold it under any limit", "a limit of", ""},
		{"the GiB above the need is over the GPU: the limit in MiB", 1, mps(5), 22800, VerdictDoesNotFit, "a limit of 22800Mi in ResourceClaim/a/c's MPS configuration would hold it", "", "ResourceClaim/a/c|22800Mi"},
		{"MPS without a limit: oversized against its share", 4, mps(0), 1024, VerdictOversized, "of the 1/4 of NVIDIA L4's memory its MPS share pays for", "", ""},
		{"MPS without a limit isolates nothing", 4, mps(0), 6144, VerdictTight,
			"4 pods share each GPU through MPS and 4 such pods need 24.0 GiB together of NVIDIA L4's 22.5 GiB usable: MPS without a memory limit (defaultPinnedDeviceMemoryLimit) does not isolate memory", "", ""},
		{"a limit over the GPU caps nothing", 4, mps(30), 6144, VerdictTight, "4 pods share each GPU through MPS", "MPS limit of", ""},
		{"time-slicing, as without a configuration", 4, &parser.ClaimSharing{Claim: "ResourceClaim/a/c", Strategy: parser.SharingTimeSlicing}, 6144, VerdictTight, "4 pods time-slice each GPU", "", ""},
		{"a pod's own claim under a limit", 0, mps(5), 6144, VerdictDoesNotFit, "an MPS limit of 5 GiB on NVIDIA L4 has 5.0 GiB usable; a limit of 6Gi", "pods that share", "ResourceClaim/a/c|6Gi"},
		{"a limit from the DeviceClass", 0, &parser.ClaimSharing{Claim: "ResourceClaimTemplate/a/t", From: "DeviceClass mps-5g", Strategy: parser.SharingMPS, MemoryLimitGiB: 5}, 6144, VerdictDoesNotFit,
			"a limit of 6Gi in DeviceClass mps-5g's MPS configuration would hold it", "", "DeviceClass mps-5g|6Gi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := parser.PodGPUs{Requested: 1, ClaimSharing: tc.sharing}
			if tc.pods > 0 {
				pod.SharedClaims = []parser.SharedClaim{{Address: "ResourceClaim/a/c", GPUs: 1, Pods: tc.pods}}
			}
			r := podOnSharedGPUs("g6.xlarge", pod)
			e := p.Estimate(r)
			var prof *profiles.Profile
			if tc.peakMiB == 0 { // 8B parameters in fp32: 32 GB of weights
				prof = mustProfile(t, "workload: {type: inference}\nmodel: {preset: llama-3.1-8b, precision: fp32}\ninference: {batch_size: 1, max_sequence_length: 2048}\n")
			} else {
				prof = measured(tc.peakMiB)
			}
			p.Assess(&e, r, prof, DefaultThresholds)
			if e.Fit == nil || e.Fit.Verdict != tc.verdict || !strings.Contains(e.Fit.Reason, tc.reason) || tc.absent != "" && strings.Contains(e.Fit.Reason, tc.absent) {
				t.Fatalf("fit %+v\nwant %s with %q, without %q", e.Fit, tc.verdict, tc.reason, tc.absent)
			}
			fix := ""
			if f := e.Fit.MPSLimitFix; f != nil {
				fix = f.Config + "|" + f.Limit
			}
			if fix != tc.fix || tc.fix != "" && e.Fit.CheapestFit != nil {
				t.Errorf("limit fix %q, cheapest fit %+v; want fix %q (and no other type when a limit holds it)", fix, e.Fit.CheapestFit, tc.fix)
			}
		})
	}

	// A shared claim for a MIG slice: its pods share the slice as they would a GPU.
	slice := mustProfile(t, `workload: {type: inference}
measured: {gpu_name: NVIDIA A100-SXM4-80GB, gpu_count: 1, memory_total_mib: 81920, peak_memory_used_mib: 18432, gpu_utilization: {mean: 60, p50: 60, p95: 80}, duration_seconds: 600, samples: 600, captured_at: "2026-11-02T10:00:00Z"}
`)
	for _, tc := range []struct {
		name    string
		sharing *parser.ClaimSharing
		verdict string
		reason  string
	}{
		{"time-sliced", nil, VerdictTight, "2 pods time-slice each slice and 2 such pods need 36.0 GiB together of NVIDIA A100 80GB MIG 3g.40gb's"},
		{"under a 10 GiB MPS limit", mps(10), VerdictDoesNotFit, "an MPS limit of 10 GiB on NVIDIA A100 80GB MIG 3g.40gb has 10.0 GiB usable; a limit of 18Gi"},
		{"under 18 GiB MPS limits", mps(18), VerdictTight, "but 2 pods share each slice and 2 such pods need 36.0 GiB together of NVIDIA A100 80GB MIG 3g.40gb's"},
	} {
		r := podOnSharedGPUs("p4de.24xlarge", parser.PodGPUs{Requested: 1, MIGProfile: "3g.40gb", ClaimSharing: tc.sharing,
			SharedClaims: []parser.SharedClaim{{Address: "ResourceClaim/a/c", GPUs: 1, Pods: 2}}})
		r.Pod.Resource = "nvidia.com/mig-3g.40gb"
		e := p.Estimate(r)
		p.Assess(&e, r, slice, DefaultThresholds)
		if e.Fit == nil || e.Fit.Verdict != tc.verdict || !strings.Contains(e.Fit.Reason, tc.reason) {
			t.Errorf("MIG slice, %s: fit %+v\nwant %s with %q", tc.name, e.Fit, tc.verdict, tc.reason)
		}
	}

	// Too big for its shared 1g.10gb slice: another slice, or another GPU, is priced as the
	// pod's own, not as a share of the claim's (the sharers' memory together is not judged
	// there).
	r := podOnSharedGPUs("p4de.24xlarge", parser.PodGPUs{Requested: 1, MIGProfile: "1g.10gb", ClaimSharing: mps(0),
		SharedClaims: []parser.SharedClaim{{Address: "ResourceClaim/a/c", GPUs: 1, Pods: 2}}})
	r.Pod.Resource = "nvidia.com/mig-1g.10gb"
	e := p.Estimate(r)
	p.Assess(&e, r, slice, DefaultThresholds)
	own := func(typ, profile string) money.Micros {
		pod := parser.PodGPUs{Requested: 1, MIGProfile: profile}
		o := podOnSharedGPUs(typ, pod)
		if profile != "" {
			o.Pod.Resource = "nvidia.com/mig-" + profile
		}
		oe := p.Estimate(o)
		m, ok := oe.Monthly()
		if !ok {
			t.Fatalf("%s %s unpriced", typ, profile)
		}
		return m
	}
	if e.Fit == nil || e.Fit.Verdict != VerdictDoesNotFit || e.Fit.CheapestFit == nil || e.Fit.CheapestFit.InstanceType != "g6.xlarge" ||
		money.Micros(e.Fit.CheapestFit.MonthlyCost) != own("g6.xlarge", "") {
		t.Errorf("18 GiB on a shared 1g.10gb slice: fit %+v, cheapest %+v; want an L4 of its own at %s", e.Fit, e.Fit.CheapestFit, own("g6.xlarge", "").Decimal(2))
	}
	if m, ok := e.Monthly(); !ok || math.Abs(float64(2*m-own("p4de.24xlarge", "1g.10gb"))) > 20_000 {
		t.Errorf("a 1g.10gb slice two pods share: %s each, want half of %s", m.Decimal(2), own("p4de.24xlarge", "1g.10gb").Decimal(2))
	}
	tgt, why := p.targetOf(&e, &r, slice)
	to, ok := findMIG(tgt.gpu, "2g.20gb")
	if why != "" || !ok {
		t.Fatalf("target %q, 2g.20gb %v", why, ok)
	}
	if _, monthly, ok := p.resliced(&e, r, tgt, to); !ok || monthly != own("p4de.24xlarge", "2g.20gb") {
		t.Errorf("resliced to 2g.20gb: %s (%v), want a slice of its own at %s", monthly.Decimal(2), ok, own("p4de.24xlarge", "2g.20gb").Decimal(2))
	}
}

// A pod on a one-GPU node whose GPU NVIDIA's device plugin shares runs on that GPU, whatever
// units it holds (TestSeveralUnitsOfSharedGPUs lays units out over more). Under MPS each unit is an
// equal share of its memory, which is what the workload must fit in. Under time-slicing it sees
// all of the memory, but the pods that share the GPU use it together: tight when as many such
// pods as share it would not fit, and oversized against the share it pays for, not the GPU.
func TestFitOnSharedGPUs(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	measured := func(peakMiB int, util float64) *profiles.Profile {
		return mustProfile(t, fmt.Sprintf(`workload: {type: inference}
measured: {gpu_name: NVIDIA A10G, gpu_count: 1, memory_total_mib: 23028, peak_memory_used_mib: %d, gpu_utilization: {mean: %g, p50: 10, p95: 20}, duration_seconds: 600, samples: 600, captured_at: "2026-11-02T10:00:00Z"}
`, peakMiB, util))
	}
	for _, tc := range []struct {
		name     string
		strategy string
		replicas int
		units    int64
		prof     *profiles.Profile
		verdict  string
		reason   string
	}{
		// An A10G has 22.49 GiB usable: a 1/4 MPS share 5.62 GiB.
		{"MPS: 8 GiB does not fit a quarter", "mps", 4, 1, measured(8192, 60), VerdictDoesNotFit, "a 1/4 MPS share of NVIDIA A10G has 5.6 GiB usable"},
		{"MPS: two units are half", "mps", 4, 2, measured(8192, 60), VerdictFits, ""},
		{"MPS: 4 GiB fits a quarter", "mps", 4, 1, measured(4096, 60), VerdictFits, ""},
		{"time-slicing: 8 GiB × 4 pods is over the GPU", "time-slicing", 4, 1, measured(8192, 60), VerdictTight,
			"needs 8.0 GiB alone, but 4 pods time-slice each GPU and 4 such pods need 32.0 GiB together of NVIDIA A10G's 22.5 GiB usable"},
		{"time-slicing: 5 GiB × 4 pods fits", "time-slicing", 4, 1, measured(5120, 60), VerdictFits, ""},
		{"time-slicing: 1 GiB is oversized for a quarter", "time-slicing", 4, 1, measured(1024, 60), VerdictOversized,
			"needs 18% of the 1/4 of NVIDIA A10G's memory its time-slice share pays for (under 40%)"},
		{"time-slicing: 10% of the GPU's time is 40% of a quarter", "time-slicing", 4, 1, measured(5120, 10), VerdictFits, ""},
		{"time-slicing: 5% of the GPU's time is oversized for a quarter", "time-slicing", 4, 1, measured(5120, 5), VerdictOversized,
			"measured mean GPU utilization 5.0%, under 25% of the 1/4 of the GPU's time its share pays for"},
		{"GKE time-sharing isolates no memory either", "time-sharing", 4, 1, measured(8192, 60), VerdictTight, "4 such pods need 32.0 GiB together"},
		{"MPS: 1 GiB of a half is oversized", "mps", 2, 1, measured(1024, 60), VerdictOversized, "of the memory of a 1/2 MPS share of NVIDIA A10G"},
		{"MPS: 5% of the GPU's time is oversized for a half", "mps", 2, 1, measured(5120, 5), VerdictOversized,
			"measured mean GPU utilization 5.0%, under 25% of the 1/2 of the GPU's time its share pays for"},
		{"MPS: 20% of the GPU's time is 40% of a half", "mps", 2, 1, measured(5120, 20), VerdictFits, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := podOnSharedGPUs("g5.xlarge", parser.PodGPUs{Requested: tc.units, SharedReplicas: tc.replicas, SharingStrategy: tc.strategy})
			e := p.Estimate(r)
			if !strings.Contains(strings.Join(e.Notes, "\n"), map[string]string{"mps": "MPS-shared GPU (NVIDIA device plugin)", "time-slicing": "time-sliced GPU (NVIDIA device plugin)",
				"time-sharing": "time-shared GPU (GKE time-sharing)"}[tc.strategy]) {
				t.Errorf("notes %q do not say how the GPU is shared", e.Notes)
			}
			p.Assess(&e, r, tc.prof, DefaultThresholds)
			if e.Fit == nil || e.Fit.Verdict != tc.verdict || !strings.Contains(e.Fit.Reason, tc.reason) {
				t.Errorf("fit %+v, want %s with %q", e.Fit, tc.verdict, tc.reason)
			}
		})
	}
}

// A pod that asks for several units of GPUs NVIDIA's device plugin shares runs on as many GPUs as
// the plugin lays them out over: its default policy spreads them, one GPU per unit while the node
// has GPUs, so a 4-GPU workload on 4 units of a 4-GPU node has its 4 GPUs; the packed policy
// fills a GPU's units first. The pod is judged on the GPU it holds the fewest units of: shared
// with a pod for each unit it does not hold, paid for by the units it does, and its own where it
// holds them all. A config that refuses several units (failRequestsGreaterThanOne; MPS's default)
// leaves the pod unpriced: it never runs.
func TestSeveralUnitsOfSharedGPUs(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	measured := func(gpus, peakMiB int) *profiles.Profile {
		return mustProfile(t, fmt.Sprintf(`workload: {type: inference}
measured: {gpu_name: NVIDIA A10G, gpu_count: %d, memory_total_mib: 23028, peak_memory_used_mib: %d, gpu_utilization: {mean: 60, p50: 60, p95: 80}, duration_seconds: 600, samples: 600, captured_at: "2026-11-02T10:00:00Z"}
`, gpus, peakMiB))
	}
	// g5.12xlarge: 4 A10Gs of 22.49 GiB usable.
	for _, tc := range []struct {
		name            string
		strategy        string
		replicas        int
		units           int64
		packed          bool
		prof            *profiles.Profile
		verdict, reason string
		note            string
	}{
		{"spread: four units are four GPUs", "time-slicing", 4, 4, false, measured(4, 5120), VerdictFits, "",
			"spreads its 4 units over 4 GPUs, at least 1 of each"},
		{"packed: four units are one GPU", "time-slicing", 4, 4, true, measured(4, 5120), VerdictDoesNotFit, "the workload spans 4 GPUs; NVIDIA A10G gives it 1",
			"packs its 4 units onto 1 GPU (sharedDevicesAllocationPolicy: packed), at least 4 of each"},
		{"packed: every unit of two GPUs is two GPUs of its own", "time-slicing", 2, 4, true, measured(2, 12288), VerdictFits, "", "packs its 4 units onto 2 GPUs"},
		{"packed: GPUs of its own are judged as such", "time-slicing", 2, 4, true, measured(2, 4096), VerdictOversized, "needs 18% of NVIDIA A10G's memory (under 40%)", ""},
		{"spread: two units a GPU leave one sharer for each other unit", "time-slicing", 4, 8, false, measured(4, 8192), VerdictTight,
			"needs 8.0 GiB alone, but 3 pods time-slice each GPU and 3 such pods need 24.0 GiB together", "spreads its 8 units over 4 GPUs, at least 2 of each"},
		{"spread: two units a GPU pay for half of it", "time-slicing", 4, 8, false, measured(4, 3072), VerdictOversized,
			"needs 27% of the 1/2 of NVIDIA A10G's memory its time-slice share pays for (under 40%)", ""},
		{"MPS: two units are a quarter of each of two GPUs", "mps", 4, 2, false, measured(1, 4096), VerdictOversized, "uses 1 of the 2 GPUs it is given", "spreads its 2 units over 2 GPUs"},
		{"MPS: a quarter of each of two GPUs holds a 2-GPU workload", "mps", 4, 2, false, measured(2, 4096), VerdictFits, "", ""},
		{"MPS: 8 GiB on each of two GPUs is over a quarter", "mps", 4, 2, false, measured(2, 8192), VerdictDoesNotFit, "a 1/4 MPS share of NVIDIA A10G has 5.6 GiB usable", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := podOnSharedGPUs("g5.12xlarge", parser.PodGPUs{Requested: tc.units, SharedReplicas: tc.replicas, SharingStrategy: tc.strategy, SharedPacked: tc.packed})
			e := p.Estimate(r)
			if e.UnpricedReason != nil {
				t.Fatalf("unpriced: %s", *e.UnpricedReason)
			}
			if got, want := e.GPU.Count, float64(tc.units)/float64(tc.replicas); got != want {
				t.Errorf("priced as %v GPUs, want %v: the layout changes what the pod runs on, not what it pays", got, want)
			}
			if notes := strings.Join(e.Notes, "\n"); !strings.Contains(notes, tc.note) {
				t.Errorf("notes %q, want %q", e.Notes, tc.note)
			}
			p.Assess(&e, r, tc.prof, DefaultThresholds)
			if e.Fit == nil || e.Fit.Verdict != tc.verdict || !strings.Contains(e.Fit.Reason, tc.reason) {
				t.Errorf("fit %+v, want %s with %q", e.Fit, tc.verdict, tc.reason)
			}
		})
	}

	for _, tc := range []struct {
		name, strategy   string
		units, container int64 // the pod's, the largest container's (0: not known)
		oneUnit          bool
		refused          string
	}{
		{"time-slicing that refuses several units", "time-slicing", 2, 2, true, "a container asks for 2 units of nvidia.com/gpu, which NVIDIA's device plugin shares 4 to a GPU, and the plugin refuses a container more than one (its config sets failRequestsGreaterThanOne): the pod fails when its node admits it and never runs"},
		{"MPS, as it does by default", "mps", 3, 0, true, "a container asks for 3 units of nvidia.com/gpu, which NVIDIA's device plugin shares 4 to a GPU, and the plugin refuses a container more than one (MPS sets failRequestsGreaterThanOne unless its config says false)"},
		{"GKE's time-sharing", "time-sharing", 2, 2, true, "a container asks for 2 nvidia.com/gpu on nodes whose GPUs GKE shares between up to 4 containers, and GKE refuses a container more than one there"},
		{"GKE's MPS", "", 4, 4, true, "GKE refuses a container more than one there"},
		{"one unit is not refused", "mps", 1, 1, true, ""},
		{"nor one unit in each of two containers", "time-slicing", 2, 1, true, ""},
		{"nor several where the config allows them", "time-slicing", 2, 2, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := podOnSharedGPUs("g5.12xlarge", parser.PodGPUs{Requested: tc.units, SharedReplicas: 4, SharingStrategy: tc.strategy, SharedOneUnit: tc.oneUnit, LargestContainer: tc.container})
			e := p.Estimate(r)
			switch {
			case tc.refused == "" && e.UnpricedReason != nil:
				t.Errorf("unpriced: %s", *e.UnpricedReason)
			case tc.refused != "" && (e.UnpricedReason == nil || !strings.Contains(*e.UnpricedReason, tc.refused)):
				t.Errorf("unpriced reason %v, want %q", e.UnpricedReason, tc.refused)
			case tc.refused != "" && (e.GPU == nil || e.GPU.Model != "NVIDIA A10G" || strings.Contains(strings.Join(e.Notes, "\n"), "units over")):
				t.Errorf("refused on %+v, notes %q: want the node's GPU named, and no layout of units that are never handed out", e.GPU, e.Notes)
			}
		})
	}
}

// vLLM reserves gpu_memory_utilization of the whole GPU when it starts and refuses to start where
// less is free, so copies that time-slice a GPU all start only when their shares add up to at
// most the GPU. Where they do not, the fit is tight, naming the share that lets them all start
// and whether the server's need fits in it.
func TestPreallocatingEngineOnTimeSlicedGPUs(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	served := func(args ...string) *profiles.Profile {
		t.Helper()
		prof, why := profiles.FromVLLM(append([]string{"vllm", "serve"}, args...))
		if prof == nil {
			t.Fatal(why)
		}
		return prof
	}
	small := served("meta-llama/Llama-3.2-1B-Instruct", "--max-model-len", "8192")
	large := served("meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192")
	for _, tc := range []struct {
		name     string
		strategy string
		replicas int
		prof     *profiles.Profile
		verdict  string
		reason   string // "": the reason says nothing of the reservation
	}{
		{"four 0.90 shares of one A10G", "time-slicing", 4, small, VerdictTight,
			"the engine reserves 0.90 of each GPU's memory when it starts (gpu_memory_utilization) and refuses to start where less is free: of 4 pods that time-slice each GPU, a second such server does not start (4 × 0.90 is over the whole GPU); at --gpu-memory-utilization 0.25 or less each takes 5.6 GiB, which holds the"},
		{"a server that needs more than half", "time-slicing", 2, large, VerdictTight,
			"at 0.50, the most that lets 2 start, each would have 11.2 GiB, less than the 1"},
		{"GKE's time-sharing too", "time-sharing", 3, small, VerdictTight, "at --gpu-memory-utilization 0.33 or less each takes 7.4 GiB"},
		{"shares just over the GPU", "time-slicing", 2, served("meta-llama/Llama-3.2-1B-Instruct", "--max-model-len", "8192", "--gpu-memory-utilization", "0.55"), VerdictTight,
			"a second such server does not start (2 × 0.55 is over the whole GPU); at --gpu-memory-utilization 0.50 or less"},
		{"shares that add up to the GPU start", "time-slicing", 3, served("meta-llama/Llama-3.2-1B-Instruct", "--max-model-len", "8192", "--gpu-memory-utilization", "0.33"), "", ""},
		{"MPS splits the memory itself", "mps", 4, small, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := podOnSharedGPUs("g5.xlarge", parser.PodGPUs{Requested: 1, SharedReplicas: tc.replicas, SharingStrategy: tc.strategy})
			e := p.Estimate(r)
			p.Assess(&e, r, tc.prof, DefaultThresholds)
			if e.Fit == nil {
				t.Fatal("no fit")
			}
			if tc.reason == "" {
				if strings.Contains(e.Fit.Reason, "reserves") {
					t.Errorf("fit %+v speaks of the reservation", e.Fit)
				}
				return
			}
			if e.Fit.Verdict != tc.verdict || !strings.Contains(e.Fit.Reason, tc.reason) {
				t.Errorf("fit %s: %q\nwant %s with %q", e.Fit.Verdict, e.Fit.Reason, tc.verdict, tc.reason)
			}
		})
	}
}

// A time-sliced MIG slice (NVIDIA's device plugin, GKE's time-sharing) is priced as its share of
// the slice, and judged as a time-sliced GPU is: its sharers use the slice's memory together. A
// smaller slice of its own is suggested only where it costs less than the share it pays now.
func TestTimeSlicedMIGSlices(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	measured := func(peakMiB int) *profiles.Profile {
		return mustProfile(t, fmt.Sprintf(`workload: {type: inference}
measured: {gpu_name: NVIDIA A100-SXM4-80GB, gpu_count: 1, memory_total_mib: 81920, peak_memory_used_mib: %d, gpu_utilization: {mean: 60, p50: 60, p95: 80}, duration_seconds: 600, samples: 600, captured_at: "2026-11-02T10:00:00Z"}
`, peakMiB))
	}
	pod := func(resource string, replicas int) parser.Resource {
		profile := strings.TrimSuffix(strings.TrimPrefix(resource, "nvidia.com/mig-"), ".shared")
		strategy := ""
		if replicas > 0 {
			strategy = parser.SharingTimeSlicing
		}
		return parser.Resource{Address: "Deployment/a/b", Provider: parser.AWS, Region: "us-east-1", InstanceType: "p4de.24xlarge", Quantity: 3, PurchaseOption: parser.OnDemand,
			Kind: parser.KindKubernetes, Pod: &parser.PodGPUs{Resource: resource, Requested: 1, MIGProfile: profile, SharedReplicas: replicas, SharingStrategy: strategy}}
	}
	monthly := func(e Estimate) money.Micros { // compared to the cent: each is rounded to one
		t.Helper()
		m, ok := e.Monthly()
		if !ok {
			t.Fatalf("unpriced: %v", e.UnpricedReason)
		}
		return m
	}

	whole, shared := p.Estimate(pod("nvidia.com/mig-3g.40gb", 0)), p.Estimate(pod("nvidia.com/mig-3g.40gb", 3))
	if w, s := monthly(whole), monthly(shared); s*3 < w-30000 || s*3 > w+30000 || !shared.PriceEstimated || whole.PriceEstimated {
		t.Errorf("a slice time-sliced 3 ways: %s (estimated %v), want a third of the whole slice's %s (estimated %v)", s, shared.PriceEstimated, w, whole.PriceEstimated)
	}
	if !slices.Contains(shared.Notes, "time-sliced MIG 3g.40gb slice (NVIDIA device plugin): up to 3 pods share one slice, so a unit is priced as 1/3 of it (as if every share is used)") {
		t.Errorf("notes %q do not say how the slice is shared", shared.Notes)
	}
	if shared.GPU == nil || math.Abs(shared.GPU.Count-0.5/3) > 1e-9 || shared.GPU.MIGProfile != "3g.40gb" {
		t.Errorf("GPU %+v, want a pod's third of a half GPU", shared.GPU)
	}
	renamed := p.Estimate(pod("nvidia.com/mig-3g.40gb.shared", 0))
	if monthly(renamed) != monthly(whole) || !renamed.PriceEstimated ||
		!slices.Contains(renamed.Notes, "time-sliced MIG 3g.40gb slice with an unknown number of sharers: priced as a whole slice per unit, an upper bound") {
		t.Errorf("a renamed slice, sharers unknown: %s (estimated %v), notes %q; want the whole slice's %s, an estimate", monthly(renamed), renamed.PriceEstimated, renamed.Notes, monthly(whole))
	}

	for _, tc := range []struct {
		name     string
		r        parser.Resource
		peakMiB  int
		verdict  string
		reason   string
		migSlice string // the smaller slice suggested, with its recommendation
	}{
		// A 1g.10gb slice has 9.3 GiB usable.
		{"two 6 GiB pods on one 1g.10gb slice", pod("nvidia.com/mig-1g.10gb", 2), 6144, VerdictTight,
			"needs 6.0 GiB alone, but 2 pods time-slice each slice and 2 such pods need 12.0 GiB together of NVIDIA A100 80GB MIG 1g.10gb's 9.3 GiB usable", ""},
		{"three 6 GiB pods on a 3g.40gb slice", pod("nvidia.com/mig-3g.40gb", 3), 6144, VerdictFits, "", "1g.10gb"},
		// A 2g.20gb slice halved is 1/7 of the GPU, what a 1g.10gb slice of its own costs.
		{"two 3 GiB pods on a 2g.20gb slice", pod("nvidia.com/mig-2g.20gb", 2), 3072, VerdictOversized,
			"needs 32% of the 1/2 of NVIDIA A100 80GB MIG 2g.20gb's memory its time-slice share pays for", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := p.Estimate(tc.r)
			p.Assess(&e, tc.r, measured(tc.peakMiB), DefaultThresholds)
			if e.Fit == nil || e.Fit.Verdict != tc.verdict || !strings.Contains(e.Fit.Reason, tc.reason) {
				t.Fatalf("fit %+v, want %s with %q", e.Fit, tc.verdict, tc.reason)
			}
			var mig *Recommendation
			for i := range e.Recommendations {
				if e.Recommendations[i].Kind == RecMIG {
					mig = &e.Recommendations[i]
				}
			}
			if e.Fit.MIGSlice != tc.migSlice || (mig != nil) != (tc.migSlice != "") {
				t.Fatalf("MIG slice %q, recommendation %+v; want %q", e.Fit.MIGSlice, mig, tc.migSlice)
			}
			if mig == nil {
				return
			}
			// Each of the 3 pods on a 1g.10gb slice of its own: 3 × 1/7 of a GPU against 3 × 1/6.
			if want := monthly(e) * 6 / 7; mig.MIGProfile != tc.migSlice || money.Micros(mig.MonthlyCost) < want-20000 || money.Micros(mig.MonthlyCost) > want+20000 ||
				mig.Reason != "its pods need no share of a time-sliced 3g.40gb slice: a 1g.10gb one of their own (0.1429 of a NVIDIA A100 80GB) holds each" {
				t.Errorf("recommendation %+v, want 1g.10gb slices at %s", mig, want)
			}
		})
	}
}

// A vLLM server given no --max-model-len serves the model's whole context, whose KV cache does
// not fit beside the weights: the fit names the longest context that does, and that context is
// where the estimate, less the allocator margin vLLM does not spend, meets the share. Llama 3.1's
// layers all grow with the context; half of gpt-oss's stop at their 128-token window.
func TestInferredServerIsToldTheLongestContextThatFits(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	r := parser.Resource{Address: "Deployment/ml/chat", Provider: "aws", Region: "us-east-1", InstanceType: "g6.xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes}
	for _, tc := range []struct {
		instance string
		argv     []string
		batched  int // vLLM's default --max-num-batched-tokens on the instance's GPU
	}{
		{"g6.xlarge", []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"}, 2048},
		{"p5.4xlarge", []string{"vllm", "serve", "openai/gpt-oss-120b", "--gpu-memory-utilization", "0.8"}, 8192},
		// The MTP draft's layer holds KV cache too: 62 layers of latent a token, not 61.
		{"p5en.48xlarge", []string{"vllm", "serve", "deepseek-ai/DeepSeek-R1", "-tp", "8", "--gpu-memory-utilization", "0.65", "--speculative-config", `{"method":"deepseek_mtp","num_speculative_tokens":1}`}, 8192},
	} {
		r := r
		r.InstanceType = tc.instance
		prof, why := profiles.FromVLLM(tc.argv)
		if prof == nil {
			t.Fatal(why)
		}
		e := p.Estimate(r)
		p.Assess(&e, r, prof, DefaultThresholds)
		f := e.Fit
		if f.Verdict != VerdictDoesNotFit || f.MaxContextTokens == 0 || f.MaxContextTokens%256 != 0 || !strings.Contains(f.Reason, fmt.Sprintf("set --max-model-len %d or less", f.MaxContextTokens)) {
			t.Fatalf("%s: fit = %+v", tc.argv[2], f)
		}
		share := *f.AvailableGiBPerGPU * memory.GiB * prof.Inference.GPUMemoryUtilization
		needAt := func(seq int) float64 {
			q := *prof
			in := *prof.Inference
			in.MaxSequenceLength, in.MaxBatchedTokens = seq, tc.batched
			q.Inference = &in
			m, err := memory.Of(&q)
			if err != nil {
				t.Fatal(err)
			}
			return m.PerGPUBytes - m.Term(memory.TermFragment)
		}
		if n := f.MaxContextTokens; needAt(n) > share || needAt(n+256) <= share {
			t.Errorf("%s: context %d needs %.2f GiB, %d more tokens %.2f GiB, share %.2f GiB", tc.argv[2], n, needAt(n)/memory.GiB, 256, needAt(n+256)/memory.GiB, share/memory.GiB)
		}
		// Told that context, the server is judged to start.
		q, _ := profiles.FromVLLM(append(tc.argv, "--max-model-len", fmt.Sprint(f.MaxContextTokens)))
		e = p.Estimate(r)
		p.Assess(&e, r, q, DefaultThresholds)
		if e.Fit.Verdict == VerdictDoesNotFit || e.Fit.MaxContextTokens != 0 {
			t.Errorf("%s with the suggested context: %+v", tc.argv[2], e.Fit)
		}
	}
	// A sliding-window model's KV cache does not grow with the context: no context is suggested,
	// and on an L4 Mistral 7B fits.
	m, _ := profiles.FromVLLM([]string{"vllm", "serve", "mistralai/Mistral-7B-Instruct-v0.1"})
	e := p.Estimate(r)
	p.Assess(&e, r, m, DefaultThresholds)
	if e.Fit.Verdict != VerdictFits || e.Fit.MaxContextTokens != 0 {
		t.Errorf("mistral: %+v", e.Fit)
	}
}

// vLLM's API server takes 8,192 batched tokens by default only on a GPU of 70 GiB or more
// that is not an A100, and 2,048 elsewhere; its profiling pass, and so the activations it
// reserves, follow. A limit on the command line stands everywhere.
func TestVLLMServerBatchedTokensFollowTheGPU(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	for _, c := range []struct {
		instance, flag string
		tokens         int
	}{
		{"g6.xlarge", "", 2048},        // L4, 24 GB
		{"g6e.xlarge", "", 2048},       // L40S, 48 GB
		{"p4de.24xlarge", "", 2048},    // A100 80GB: large, but excluded by name
		{"p5.4xlarge", "", 8192},       // H100
		{"p5en.48xlarge", "", 8192},    // H200
		{"g6.xlarge", "4096", 4096},    // told
		{"p5.4xlarge", "16384", 16384}, // told
	} {
		argv := []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"}
		if c.flag != "" {
			argv = append(argv, "--max-num-batched-tokens", c.flag)
		}
		prof, why := profiles.FromVLLM(argv)
		if prof == nil {
			t.Fatal(why)
		}
		r := parser.Resource{Address: "Deployment/ml/chat", Provider: "aws", Region: "us-east-1", InstanceType: c.instance, Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes}
		e := p.Estimate(r)
		p.Assess(&e, r, prof, DefaultThresholds)
		var act string
		for _, term := range e.Fit.Breakdown {
			if term.Name == memory.TermActivations {
				act = term.Source
			}
		}
		if want := fmt.Sprintf("for %d tokens in flight", c.tokens); !strings.Contains(act, want) {
			t.Errorf("%s, flag %q: activations %q, want %s", c.instance, c.flag, act, want)
		}
		defaulted := strings.Contains(e.Fit.InferredFrom, "vLLM's default --max-num-batched-tokens 2048")
		if defaulted != (c.flag == "" && c.tokens == 2048) {
			t.Errorf("%s, flag %q: inferred from %q", c.instance, c.flag, e.Fit.InferredFrom)
		}
	}
}

// A cheaper or larger instance suggested for a vLLM server is judged with the batched-token
// limit vLLM takes on that instance's GPU, not the current one's: Llama 3.1 70B on A100 40GB
// (2,048 tokens) that does not fit is told of a type whose GPUs hold it at 8,192.
func TestCandidateInstancesTakeTheirOwnVLLMDefault(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	argv := []string{"vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", "2", "--max-model-len", "32768"}
	prof, why := profiles.FromVLLM(argv)
	if prof == nil {
		t.Fatal(why)
	}
	r := parser.Resource{Address: "vllm-70b", Provider: "aws", Region: "us-east-1", InstanceType: "p4d.24xlarge", Quantity: 1, PurchaseOption: parser.OnDemand}
	e := p.Estimate(r)
	p.Assess(&e, r, prof, DefaultThresholds)
	fit := e.Fit.CheapestFit
	if e.Fit.Verdict != VerdictDoesNotFit || fit == nil {
		t.Fatalf("fit %+v", e.Fit)
	}
	in, ok := p.Catalog.Instance("aws", fit.InstanceType)
	if !ok {
		t.Fatalf("cheapest fit %s not in the catalog", fit.InstanceType)
	}
	g, _ := p.Catalog.GPU(in.GPU)
	q := *prof
	qi := *prof.Inference
	qi.MaxBatchedTokens = vllmServerBatchedTokens(instanceTarget(in, g))
	q.Inference = &qi
	m, err := memory.Of(&q)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("(%.1f GiB of", m.PerGPUBytes/memory.GiB); !strings.Contains(fit.Reason, want) {
		t.Errorf("cheapest fit %s (%s, %d batched tokens): %q, want %s", fit.InstanceType, g.Name, qi.MaxBatchedTokens, fit.Reason, want)
	}
	if qi.MaxBatchedTokens != memory.DefaultMaxBatchedTokens {
		t.Errorf("cheapest fit %s takes %d tokens, as the current A100 does: the case no longer tests a differing default", fit.InstanceType, qi.MaxBatchedTokens)
	}
}

// The devices of a shared DRA ResourceClaim are allocated once, on one node, for every pod that
// names it: each pod pays its part (all of a claim named by no other pod), the node must hold all
// of the claim's devices whatever each pod pays, and the pods are judged as sharing each device:
// none isolates its memory from the others.
func TestSharedResourceClaims(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	claim := func(gpus int64, pods int) parser.SharedClaim {
		return parser.SharedClaim{Address: "ResourceClaim/a/c", GPUs: gpus, Pods: pods}
	}
	whole := func(instanceType string, gpus float64) money.Micros {
		r := podOnSharedGPUs(instanceType, parser.PodGPUs{Requested: 1})
		e := p.Estimate(r)
		if e.MonthlyCost == nil {
			t.Fatalf("%s: %+v", instanceType, e)
		}
		return money.Micros(float64(money.Micros(*e.MonthlyCost)) * gpus)
	}
	for _, tc := range []struct {
		name      string
		node      string
		requested int64
		claims    []parser.SharedClaim
		gpus      float64 // the GPUs one pod pays for
		unpriced  string
	}{
		{"four pods on one GPU", "g6.xlarge", 1, []parser.SharedClaim{claim(1, 4)}, 0.25, ""},
		{"no other pod names it", "g6.xlarge", 1, []parser.SharedClaim{claim(1, 1)}, 1, ""},
		{"two pods on a pair", "g6e.12xlarge", 2, []parser.SharedClaim{claim(2, 2)}, 1, ""},
		{"a GPU of its own beside a shared pair", "g6e.12xlarge", 3, []parser.SharedClaim{claim(2, 4)}, 1.5, ""},
		// Each of four pods pays 2 GPUs, but the claim's 8 are on one node: a 4-GPU one
		// cannot hold them.
		{"the node holds all of the claim", "g6e.12xlarge", 8, []parser.SharedClaim{claim(8, 4)}, 0, "a pod requests 8 GPUs but g6e.12xlarge has 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := podOnSharedGPUs(tc.node, parser.PodGPUs{Requested: tc.requested, SharedClaims: tc.claims})
			e := p.Estimate(r)
			if tc.unpriced != "" {
				if e.MonthlyCost != nil || e.UnpricedReason == nil || !strings.Contains(*e.UnpricedReason, tc.unpriced) {
					t.Fatalf("cost %v, unpriced %v; want unpriced with %q", e.MonthlyCost, e.UnpricedReason, tc.unpriced)
				}
				return
			}
			if e.MonthlyCost == nil {
				t.Fatalf("unpriced: %s", *e.UnpricedReason)
			}
			if want := whole(tc.node, tc.gpus); math.Abs(float64(money.Micros(*e.MonthlyCost)-want)) > 20_000 { // 2 cents of rounding
				t.Errorf("monthly %s, want %s (%g GPUs)", money.Micros(*e.MonthlyCost).Decimal(2), want.Decimal(2), tc.gpus)
			}
			if e.Pod == nil || math.Abs(e.Pod.PerPodGPUs-tc.gpus) > 1e-9 {
				t.Errorf("per-pod GPUs %+v, want %g", e.Pod, tc.gpus)
			}
		})
	}

	// An autoscaler adds pods to a claim's devices, not devices: pods whose GPUs all come from
	// shared claims cost the same at the maximum; a pod with a GPU of its own beside them adds
	// that GPU (and, still, its part of the claim) for each pod added.
	for _, tc := range []struct {
		name      string
		requested int64
		maxGPUs   float64 // the GPUs the workload pays for at its maximum; 0 for no maximum
	}{
		{"shared GPUs only", 1, 0},
		{"a GPU of its own beside the shared one", 2, 4 * 1.5},
	} {
		r := podOnSharedGPUs("g6e.12xlarge", parser.PodGPUs{Requested: tc.requested, SharedClaims: []parser.SharedClaim{claim(1, 2)}})
		r.Quantity, r.ScaleMax = 2, &parser.ScaleMax{Quantity: 4, From: "maxReplicas of HorizontalPodAutoscaler/a/b"}
		e := p.EstimateAll([]parser.Resource{r})[0]
		switch {
		case e.MonthlyCost == nil:
			t.Errorf("%s: unpriced: %s", tc.name, *e.UnpricedReason)
		case tc.maxGPUs == 0 && e.ScaleMax != nil:
			t.Errorf("%s: a maximum of %v for pods that add no devices", tc.name, e.ScaleMax.MonthlyCost)
		case tc.maxGPUs > 0 && (e.ScaleMax == nil || math.Abs(float64(money.Micros(e.ScaleMax.MonthlyCost)-whole("g6e.12xlarge", tc.maxGPUs))) > 20_000):
			t.Errorf("%s: maximum %+v, want %g GPUs", tc.name, e.ScaleMax, tc.maxGPUs)
		}
	}

	// The pods that share a claim are all on its node: a node chosen for them holds their CPU
	// and memory together; a pinned one that does not is said.
	ask := func(p parser.PodGPUs) parser.PodGPUs {
		p.CPU, p.MemoryGiB = 2, 8
		p.SharedClaims = []parser.SharedClaim{{Address: "ResourceClaim/a/c", GPUs: 1, Pods: 3, CPU: 6, MemoryGiB: 24}}
		return p
	}
	// One pod of this workload, two of others: g6.xlarge holds this one, not the three.
	chosen := podOnSharedGPUs("", ask(parser.PodGPUs{Requested: 1, GPUNames: []string{"l4"}}))
	if e := p.Estimate(chosen); e.InstanceType != "g6.2xlarge" {
		t.Errorf("three pods of 2 CPUs and 8 GiB on one L4: on %q, want g6.2xlarge (8 vCPUs, 32 GiB; g6.xlarge has 4 and 16); notes %q", e.InstanceType, e.Notes)
	}
	pinned := podOnSharedGPUs("g6.xlarge", ask(parser.PodGPUs{Requested: 1}))
	pinned.Quantity = 3
	e := p.EstimateAll([]parser.Resource{pinned})[0]
	if slices.ContainsFunc(e.Notes, func(n string) bool { return strings.Contains(n, "nodes they need") }) {
		t.Errorf("pinned: the pods of a shared claim are on its one node, not more: notes %q", e.Notes)
	}
	if want := "the 3 pods that share ResourceClaim/a/c request 6 CPUs and 24 GiB together, more than g6.xlarge's 4 vCPUs and 16 GiB: they run on the one node that holds its devices, so some of them stay pending"; !slices.Contains(e.Notes, want) {
		t.Errorf("pinned: notes %q, want %q", e.Notes, want)
	}
	if big := podOnSharedGPUs("g6.2xlarge", ask(parser.PodGPUs{Requested: 1})); slices.ContainsFunc(p.Estimate(big).Notes, func(n string) bool { return strings.Contains(n, "stay pending") }) {
		t.Errorf("g6.2xlarge holds the three pods, but is said not to")
	}

	// The fit: four copies of a server that needs 6 GiB share one L4's 22 GiB; one that needs
	// 4 GiB fits alone but is oversized against the quarter it pays for; on a claim of its own
	// a pod is judged as on its own GPU.
	measured := func(peakMiB int) *profiles.Profile {
		return mustProfile(t, fmt.Sprintf(`workload: {type: inference}
measured: {gpu_name: NVIDIA L4, gpu_count: 1, memory_total_mib: 23034, peak_memory_used_mib: %d, gpu_utilization: {mean: 60, p50: 60, p95: 80}, duration_seconds: 600, samples: 600, captured_at: "2026-11-02T10:00:00Z"}
`, peakMiB))
	}
	for _, tc := range []struct {
		name    string
		pods    int
		prof    *profiles.Profile
		verdict string
		reason  string
	}{
		{"four that need 6 GiB each", 4, measured(6144), VerdictTight, "4 pods time-slice each GPU and 4 such pods need 24.0 GiB together"},
		{"a quarter used under 40%", 4, measured(1024), VerdictOversized, "of the 1/4 of NVIDIA L4's memory its time-slice share pays for"},
		{"alone on its claim", 1, measured(6144), VerdictOversized, "needs 27% of NVIDIA L4's memory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := podOnSharedGPUs("g6.xlarge", parser.PodGPUs{Requested: 1, SharedClaims: []parser.SharedClaim{claim(1, tc.pods)}})
			e := p.Estimate(r)
			p.Assess(&e, r, tc.prof, DefaultThresholds)
			if e.Fit == nil || e.Fit.Verdict != tc.verdict || !strings.Contains(e.Fit.Reason, tc.reason) {
				t.Errorf("fit %+v\nwant %s with %q", e.Fit, tc.verdict, tc.reason)
			}
		})
	}
}

// A peak measured on a Hopper GPU (testdata/profiles/h100/full-b4.yaml: 45.72 GiB on an H100)
// judged on another architecture says so where the verdict could turn on it: a fit, or a
// shortfall under 25% (an L40S's 45.0 GiB, an A100 40GB's 40.0). Not on an H100 or an H200, where
// the same workloads peaked at the same MiB, nor where the card is far too small (an L4).
func TestMeasuredPeakOnAnotherArchitecture(t *testing.T) {
	prof, err := profiles.Load("../testdata/profiles/h100/full-b4.yaml")
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memory.Of(prof)
	if err != nil || !mem.Measured {
		t.Fatalf("want the measured peak: %v %+v", err, mem)
	}
	p := &Pricer{Catalog: catalog.MustDefault()}
	rows := p.FitInstances(prof, mem, []string{"p5.4xlarge", "p5en.48xlarge", "p4de.24xlarge", "p4d.24xlarge", "g6e.xlarge", "g6.xlarge"}, "aws", "us-east-1", parser.OnDemand, DefaultThresholds)
	want := map[string]string{
		"p4de.24xlarge": "measured on hopper, not ampere",
		"p4d.24xlarge":  "measured on hopper, not ampere",
		"g6e.xlarge":    "measured on hopper, not ada-lovelace",
	}
	if len(rows) != 6 {
		t.Fatalf("want six rows, got %+v", rows)
	}
	for _, row := range rows {
		got := strings.Contains(row.Reason, "measured on")
		if w, ok := want[row.InstanceType]; got != ok || ok && !strings.Contains(row.Reason, w) {
			t.Errorf("%s (%s): reason %q, want %q", row.InstanceType, row.Verdict, row.Reason, w)
		}
	}
	// A resource on the A100 80GB carries it as a note; one on the H100 does not.
	for typ, note := range map[string]bool{"p4de.24xlarge": true, "p5.4xlarge": false} {
		r := parser.Resource{Address: "aws_instance." + typ, Provider: "aws", Region: "us-east-1", InstanceType: typ, Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform}
		e := p.Estimate(r)
		p.Assess(&e, r, prof, DefaultThresholds)
		got := slices.ContainsFunc(e.Notes, func(n string) bool {
			return strings.Contains(n, "measured peak is from an NVIDIA H100 80GB HBM3 (hopper); the NVIDIA A100 80GB is ampere")
		})
		if got != note {
			t.Errorf("%s: notes %q, want the architecture's note: %v", typ, e.Notes, note)
		}
	}
}
