package estimator

import (
	"cmp"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// expectCents computes the monthly cost in cents from reference figures with exact rational
// arithmetic: sum of (hourly USD × count) × factor, rounded half up to cents.
func expectCents(t *testing.T, factor string, terms ...string) int64 {
	t.Helper()
	sum := new(big.Rat)
	for i := 0; i+1 < len(terms); i += 2 {
		h, ok := new(big.Rat).SetString(terms[i])
		n, ok2 := new(big.Rat).SetString(terms[i+1])
		if !ok || !ok2 {
			t.Fatalf("bad term %q × %q", terms[i], terms[i+1])
		}
		sum.Add(sum, h.Mul(h, n))
	}
	f, _ := new(big.Rat).SetString(factor)
	sum.Mul(sum, f)
	sum.Mul(sum, big.NewRat(100, 1))
	sum.Add(sum, big.NewRat(1, 2))
	q := new(big.Int).Quo(sum.Num(), sum.Denom())
	return q.Int64()
}

func TestCostsFromReferenceRows(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	cases := []struct {
		name      string
		r         parser.Resource
		want      int64
		estimated bool
	}{
		{"2 × p4d.24xlarge on demand", parser.Resource{Provider: "aws", Region: "us-east-1", InstanceType: "p4d.24xlarge", Quantity: 2, PurchaseOption: parser.OnDemand},
			expectCents(t, "730", "21.957642", "2"), false},
		// gcp_machine_types_by_region.csv: a3-highgpu-8g,europe-west4 spot 44.118779.
		{"GCP a3-highgpu-8g spot in europe-west4 (regional table)", parser.Resource{Provider: "gcp", Region: "europe-west4", InstanceType: "a3-highgpu-8g", Quantity: 1, PurchaseOption: parser.Spot},
			expectCents(t, "730", "44.118779", "1"), false},
		{"Azure ND96isr H100 v5 spot (dated capture)", parser.Resource{Provider: "azure", Region: "eastus", InstanceType: "Standard_ND96isr_H100_v5", Quantity: 3, PurchaseOption: parser.Spot},
			expectCents(t, "730", "18.169536", "3"), false},
		// N1 + 2 T4: (VM 0.379998 + 2 × 0.35) × 730 h × 0.7 (sustained-use discount for a full month).
		{"GCP N1 with two T4", parser.Resource{Provider: "gcp", Region: "us-central1", InstanceType: "n1-standard-8", Quantity: 1, PurchaseOption: parser.OnDemand,
			Accelerators: []parser.Accelerator{{Type: "nvidia-tesla-t4", Count: 2}}},
			expectCents(t, "511", "0.379998", "1", "0.35", "2"), true},
		// Mixed ASG: 4 on demand at 1.212, 6 on spot at 1.212 × 0.40 (derived, estimated).
		{"ASG split", parser.Resource{Provider: "aws", Region: "us-east-1", InstanceType: "g5.2xlarge", Quantity: 10, SpotQuantity: 6, PurchaseOption: parser.OnDemand},
			expectCents(t, "730", "1.212", "4", "0.4848", "6"), true},
		// 120 hours a month.
		{"part-time", parser.Resource{Provider: "aws", Region: "us-east-1", InstanceType: "g6.xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, HoursPerMonth: 120},
			expectCents(t, "120", "0.8048", "1"), false},
	}
	for _, tc := range cases {
		e := p.Estimate(tc.r)
		m, ok := e.Monthly()
		if !ok {
			t.Errorf("%s: unpriced: %s", tc.name, *e.UnpricedReason)
			continue
		}
		if m.Cents() != tc.want || e.PriceEstimated != tc.estimated {
			t.Errorf("%s: monthly %s (estimated %v), want %d cents (estimated %v)", tc.name, m, e.PriceEstimated, tc.want, tc.estimated)
		}
		if len(e.PriceSources) == 0 {
			t.Errorf("%s: no price source", tc.name)
		}
	}
}

func TestNeverZeroForUnknowns(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	cases := map[string]parser.Resource{
		"unknown type":   {Provider: "aws", Region: "us-east-1", InstanceType: "p9.96xlarge", Quantity: 1, PurchaseOption: parser.OnDemand},
		"no region":      {Provider: "gcp", InstanceType: "a2-highgpu-1g", Quantity: 1, PurchaseOption: parser.OnDemand},
		"unresolved":     {Provider: "aws", Region: "us-east-1", Quantity: 1, PurchaseOption: parser.OnDemand, Unresolved: []parser.Unresolved{{Attribute: "instance_type", Reason: "var.x has no value"}}},
		"unknown cloud":  {Provider: "unknown", InstanceType: "mystery", Quantity: 1, PurchaseOption: parser.OnDemand},
		"accelerator":    {Provider: "gcp", Region: "europe-west4", InstanceType: "n1-standard-8", Quantity: 1, PurchaseOption: parser.OnDemand, Accelerators: []parser.Accelerator{{Type: "nvidia-tesla-t4", Count: 1}}},
		"count unknown":  {Provider: "aws", Region: "us-east-1", InstanceType: "g5.xlarge", Quantity: 1, PurchaseOption: parser.OnDemand, Unresolved: []parser.Unresolved{{Attribute: "count", Reason: "count: var.n has no value"}}},
		"region missing": {Provider: "azure", Region: "westeurope", InstanceType: "Standard_NC24ads_A100_v4", Quantity: 1, PurchaseOption: parser.OnDemand},
	}
	for name, r := range cases {
		e := p.Estimate(r)
		if e.MonthlyCost != nil || e.HourlyCost != nil || e.UnpricedReason == nil || *e.UnpricedReason == "" {
			t.Errorf("%s: priced %v / reason %v", name, e.MonthlyCost, e.UnpricedReason)
		}
	}
	e := p.Estimate(cases["region missing"])
	// The nearest region's cost is named: 3.673 × 730 = 2681.29 in eastus.
	if !strings.Contains(*e.UnpricedReason, "in eastus it would cost $2,681.29/month") {
		t.Errorf("reason lacks the nearest region's cost: %s", *e.UnpricedReason)
	}
	// Scaled to zero, it says what one would cost, not $0.00.
	zero := cases["region missing"]
	zero.Quantity = 0
	zero.SetScaleMax(3, "max_count")
	if e := p.Estimate(zero); e.UnpricedReason == nil || !strings.HasSuffix(*e.UnpricedReason, "; in eastus one would cost $2,681.29/month") {
		t.Errorf("scaled to zero: %v", e.UnpricedReason)
	}
}

func TestSageMakerUsesEC2RateAsEstimate(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	e := p.Estimate(parser.Resource{Provider: "aws", Region: "us-east-1", InstanceType: "ml.g5.2xlarge", Quantity: 2, PurchaseOption: parser.OnDemand})
	m, ok := e.Monthly()
	if !ok || m.Cents() != expectCents(t, "730", "1.212", "2") || !e.PriceEstimated || e.PriceBound != BoundLower {
		t.Fatalf("monthly %v estimated %v bound %q", m, e.PriceEstimated, e.PriceBound)
	}
	if e.GPU == nil || e.GPU.Model != "NVIDIA A10G" {
		t.Fatalf("gpu = %+v", e.GPU)
	}
}

func TestSustainedUseMultiplier(t *testing.T) {
	// GCP bills each quarter of the month at 100/80/60/40% of list.
	cases := map[float64]float64{730: 0.70, 365: 0.90, 182.5: 1.0, 547.5: 0.80, 0: 1}
	for h, want := range cases {
		if got := gcpSustainedUseMultiplier(h, 730); got < want-1e-9 || got > want+1e-9 {
			t.Errorf("multiplier(%g) = %g, want %g", h, got, want)
		}
	}
	// The quarters are the configured month's: 720 hours of a 720-hour month is the whole month.
	for h, want := range map[float64]float64{720: 0.70, 360: 0.90, 540: 0.80} {
		if got := gcpSustainedUseMultiplier(h, 720); got < want-1e-9 || got > want+1e-9 {
			t.Errorf("multiplier(%g of 720) = %g, want %g", h, got, want)
		}
	}
}

func TestSumIsExact(t *testing.T) {
	var es []Estimate
	for i := 0; i < 1000; i++ {
		a := money.Amount(100001) // $0.100001
		es = append(es, Estimate{MonthlyCost: &a})
	}
	es[0].PriceEstimated = true
	// Unpriced, though part of its price was worked out as an estimate before what stopped it
	// (a shared GPU's unit): it has no price to be an estimate.
	es = append(es, Estimate{UnpricedReason: new(string), PriceEstimated: true})
	tot := Sum(es)
	if tot.MonthlyCost != money.Amount(100001000) || tot.Unpriced != 1 || tot.Resources != 1001 || tot.Estimated != 1 {
		t.Fatalf("totals = %+v", tot)
	}
}

// A resource sized in vCPUs (an AWS Batch compute environment) becomes whole instances of its
// type, rounded up, with a note; a type whose vCPUs the catalog does not know is unresolved,
// never priced as zero instances.
func TestQuantityInVCPUs(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	e := p.Estimate(parser.Resource{Address: "b", Provider: parser.AWS, Region: "us-east-1", InstanceType: "g5.12xlarge", QuantityVCPUs: 50, PurchaseOption: parser.OnDemand})
	if e.Quantity != 2 || e.MonthlyCost == nil || !strings.Contains(strings.Join(e.Notes, "|"), "50 vCPUs = 2 × g5.12xlarge (48 vCPUs each)") {
		t.Errorf("g5.12xlarge: quantity %d, cost %v, notes %q", e.Quantity, e.MonthlyCost, e.Notes)
	}
	e = p.Estimate(parser.Resource{Address: "b", Provider: parser.AWS, Region: "us-east-1", InstanceType: "x9.huge", QuantityVCPUs: 50, PurchaseOption: parser.OnDemand})
	if e.MonthlyCost != nil || e.UnpricedReason == nil || !strings.Contains(*e.UnpricedReason, "vCPU count is not in the catalog") {
		t.Errorf("unknown type: %+v", e)
	}
}

// AKS node auto-provisioning's labels narrow Azure sizes by their names: sku-gpu-name A100 takes
// only sizes whose name carries A100 (not Standard_ND96asr_v4, the A100 40GB size that four
// 2-GPU pods fill for less), H100 takes the H100 NVL sizes too, and sku-family N any N size.
func TestAzureNodeAutoProvisioningNames(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	cases := []struct {
		pods int
		pod  parser.PodGPUs
		want string
	}{
		{4, parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 2, AzureGPUNames: []string{"A100"}}, "Standard_NC48ads_A100_v4"},
		{4, parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 2, GPUNames: []string{"A100"}}, "Standard_ND96asr_v4"},
		{1, parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, AzureGPUNames: []string{"h100"}}, "Standard_NC40ads_H100_v5"},
		{1, parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 4, Families: []string{"N"}}, "Standard_NC64as_T4_v3"},
	}
	for _, tc := range cases {
		pod := tc.pod
		r := parser.Resource{Address: "Deployment/a/b", Provider: "azure", Region: "eastus", Quantity: tc.pods, PurchaseOption: parser.OnDemand,
			Kind: parser.KindKubernetes, Pod: &pod}
		e := p.Estimate(r)
		if e.InstanceType != tc.want || !e.PriceEstimated || e.UnpricedReason != nil {
			t.Errorf("%+v: got %s (%v)", tc.pod, e.InstanceType, e.UnpricedReason)
		}
	}
	r := parser.Resource{Address: "Deployment/a/b", Provider: "azure", Region: "eastus", Quantity: 1, PurchaseOption: parser.OnDemand,
		Kind: parser.KindKubernetes, Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, AzureGPUNames: []string{"V100"}}}
	if e := p.Estimate(r); e.UnpricedReason == nil || !strings.Contains(*e.UnpricedReason, "V100") {
		t.Errorf("no Azure size names V100 (Standard_NC6s_v3 does not), yet priced %s", e.InstanceType)
	}
}

// Karpenter's instance-category and GPU-count bounds narrow the catalog, and a node must serve
// the resource the pod asks for: a Neuron pod never lands on an NVIDIA type, nor the reverse.
func TestCategoriesCountsAndVendors(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	four := 4
	cases := []struct {
		pod  parser.PodGPUs
		want string
		pods int
	}{
		{parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, Categories: []string{"p"}}, "p4d.24xlarge", 8}, // eight pods fill a p4d.24xlarge (21.96), for less than eight p3.2xlarge (24.48)
		{parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, Categories: []string{"p"}}, "p3.2xlarge", 1},   // one pod: a whole p3.2xlarge (3.06) beats a p4d.24xlarge (21.96), though cheaper a GPU
		{parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 4, Categories: []string{"g", "p"}, NodeGPUs: &parser.CountRange{Min: &four}}, "g4dn.12xlarge", 1},
		{parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, NodeGPUs: &parser.CountRange{In: []int{8}}}, "g4dn.metal", 1},
		{parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, AnyGPUType: true}, "g4dn.xlarge", 1},
		{parser.PodGPUs{Resource: "aws.amazon.com/neuron", Requested: 1, AnyGPUType: true}, "inf2.xlarge", 1},
	}
	for _, tc := range cases {
		pod := tc.pod
		r := parser.Resource{Address: "Deployment/a/b", Provider: "aws", Region: "us-east-1", Quantity: tc.pods, PurchaseOption: parser.OnDemand,
			Kind: parser.KindKubernetes, Pod: &pod}
		e := p.Estimate(r)
		if e.InstanceType != tc.want || !e.PriceEstimated || e.UnpricedReason != nil {
			t.Errorf("%+v: got %s (%v)", tc.pod, e.InstanceType, e.UnpricedReason)
		}
	}
	// EC2's and GCE's names, as Karpenter's AWS and GCP providers read them.
	for typ, want := range map[string]string{"g6e.xlarge": "g", "p4d.24xlarge": "p", "inf2.48xlarge": "inf", "trn1.32xlarge": "trn",
		"a3-highgpu-8g": "a", "g2-standard-4": "g", "n1-standard-8": "n", "a4x-highgpu-4g": "a"} {
		if got := typeCategory(typ); got != want {
			t.Errorf("typeCategory(%s) = %s, want %s", typ, got, want)
		}
	}
	for typ, want := range map[string]int{"g6e.xlarge": 6, "p4d.24xlarge": 4, "inf2.48xlarge": 2, "dl1.24xlarge": 1, "p5.48xlarge": 5,
		"a3-highgpu-8g": 3, "g2-standard-4": 2, "a4x-highgpu-4g": 4, "n1-standard-8": 1, "a2-ultragpu-1g": 2} {
		if got := typeGeneration(typ); got != want {
			t.Errorf("typeGeneration(%s) = %d, want %d", typ, got, want)
		}
	}
	// Generation and GPU memory narrow the catalog: g of generation 6+ is g6.xlarge, not the
	// cheaper g4dn; more than 40,000 MiB a GPU is the L40S of g6e.xlarge; exactly 24576 MiB (the
	// EC2 API's A10G and L4) matches the catalog's 24 GiB.
	five, big := 5, 40000
	for _, tc := range []struct {
		pod  parser.PodGPUs
		want string
	}{
		{parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, Categories: []string{"g"}, Generations: &parser.CountRange{Min: new(five + 1)}}, "g6.xlarge"},
		{parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUMemoryMiB: &parser.CountRange{Min: new(big + 1)}}, "g6e.xlarge"},
		{parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUMemoryMiB: &parser.CountRange{In: []int{24576}}, Generations: &parser.CountRange{In: []int{5}}}, "g5.xlarge"},
	} {
		pod := tc.pod
		r := parser.Resource{Address: "Deployment/a/b", Provider: "aws", Region: "us-east-1", Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes, Pod: &pod}
		if e := p.Estimate(r); e.InstanceType != tc.want {
			t.Errorf("%+v: got %s (%v)", tc.pod, e.InstanceType, e.UnpricedReason)
		}
	}
	// GPU feature discovery's nvidia.com/gpu.memory is the driver's total (the catalog's
	// reported_mib), not the EC2 API's: 23034 is the L4 of g6.xlarge (24 GiB nominal, outside
	// the EC2 figure's 3 %); 81920 is an A100 80GB on GCP, not the H100 of a3 (81559); more
	// than 40,000 on Azure is the A100 of Standard_NC24ads_A100_v4; 81920 on AWS with 8 GPUs a
	// node is p4de.24xlarge. A figure no GPU reports leaves the pod unpriced, saying so.
	eight := 8
	for _, tc := range []struct {
		provider, region string
		pod              parser.PodGPUs
		want             string
	}{
		{"aws", "us-east-1", parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUReportedMiB: &parser.CountRange{In: []int{23034}}}, "g6.xlarge"},
		{"gcp", "us-central1", parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUReportedMiB: &parser.CountRange{In: []int{81920}}}, "a2-ultragpu-1g"},
		{"gcp", "us-central1", parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 8, GPUReportedMiB: &parser.CountRange{In: []int{81559}}}, "a3-highgpu-8g"},
		{"azure", "eastus", parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUReportedMiB: &parser.CountRange{Min: new(big + 1)}}, "Standard_NC24ads_A100_v4"},
		{"aws", "us-east-1", parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 8, NodeGPUs: &parser.CountRange{In: []int{eight}}, GPUReportedMiB: &parser.CountRange{In: []int{81920}}}, "p4de.24xlarge"},
		{"aws", "us-east-1", parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUReportedMiB: &parser.CountRange{In: []int{12345}}}, ""},
	} {
		pod := tc.pod
		r := parser.Resource{Address: "Pod/a/b", Provider: tc.provider, Region: tc.region, Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes, Pod: &pod}
		e := p.Estimate(r)
		switch {
		case e.InstanceType != tc.want:
			t.Errorf("%s %+v: got %s (%v)", tc.provider, tc.pod.GPUReportedMiB, e.InstanceType, e.UnpricedReason)
		case tc.want == "" && (e.UnpricedReason == nil || !strings.Contains(*e.UnpricedReason, "12345 MiB a GPU as the driver reports it")):
			t.Errorf("unpriced reason %v", e.UnpricedReason)
		}
	}
}

// GPU feature discovery's nvidia.com/gpu.family and gpu.compute.major/minor narrow the catalog to
// GPUs of that architecture (catalog.GPU.Family): hopper on AWS is the H100 of p5.4xlarge, not a
// cheaper L4; ada-lovelace is the L4 (8.9), not the A10G (8.6) that GFD before v0.17.0 also called
// ampere; volta on GCP is an N1 with a V100 attached, as a T4's reported memory is one with a T4;
// a compute capability of 8 or more with minor 0 excludes the L4 (8.9) and A10G (8.6) for an
// H100; a family no GPU has leaves the pod unpriced, saying which. A DRA claim's bound on the
// compute capability as a whole (8.6 up to, not with, 8.9) takes the A10G over the cheaper L4,
// and at most 7.5 the T4; above 8.9 it is the H100, and 13.0 and up no GPU in the catalog.
func TestGPUArchitectureNarrowsTheNode(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	eight := 8
	for _, tc := range []struct {
		provider, region string
		pod              parser.PodGPUs
		want             string
	}{
		{"aws", "us-east-1", parser.PodGPUs{GPUFamilies: []string{"hopper"}}, "p5.4xlarge"},
		{"aws", "us-east-1", parser.PodGPUs{GPUFamilies: []string{"ada-lovelace"}}, "g6.xlarge"},
		{"aws", "us-east-1", parser.PodGPUs{GPUFamilies: []string{"ampere"}}, "g5.xlarge"},
		{"aws", "us-east-1", parser.PodGPUs{GPUFamilies: []string{"turing"}}, "g4dn.xlarge"},
		{"gcp", "us-central1", parser.PodGPUs{GPUFamilies: []string{"volta"}}, "n1-standard-1 nvidia-tesla-v100"},
		{"aws", "us-east-1", parser.PodGPUs{GPUComputeMajor: &parser.CountRange{Min: &eight}, GPUComputeMinor: &parser.CountRange{In: []int{0}}}, "p5.4xlarge"},
		{"aws", "us-east-1", parser.PodGPUs{GPUComputeCapability: &parser.ComputeRange{Min: capability(8, 6, false)}}, "g6.xlarge"},
		{"aws", "us-east-1", parser.PodGPUs{GPUComputeCapability: &parser.ComputeRange{Min: capability(8, 6, false), Max: capability(8, 9, true)}}, "g5.xlarge"},
		{"aws", "us-east-1", parser.PodGPUs{GPUComputeCapability: &parser.ComputeRange{Max: capability(7, 5, false)}}, "g4dn.xlarge"},
		{"aws", "us-east-1", parser.PodGPUs{GPUComputeCapability: &parser.ComputeRange{Min: capability(8, 9, true)}}, "p5.4xlarge"},
		{"aws", "us-east-1", parser.PodGPUs{GPUComputeCapability: &parser.ComputeRange{Min: capability(13, 0, false)}}, ""},
		{"gcp", "us-central1", parser.PodGPUs{GPUReportedMiB: &parser.CountRange{In: []int{15360}}}, "n1-standard-1 nvidia-tesla-t4"},
		{"aws", "us-east-1", parser.PodGPUs{GPUFamilies: []string{"kepler"}}, ""},
		{"aws", "us-east-1", parser.PodGPUs{Resource: "aws.amazon.com/neuron", GPUComputeMajor: &parser.CountRange{Max: &eight}}, ""}, // GFD labels NVIDIA GPUs only
	} {
		pod := tc.pod
		pod.Resource, pod.Requested = cmp.Or(pod.Resource, "nvidia.com/gpu"), 1
		r := parser.Resource{Address: "Pod/a/b", Provider: tc.provider, Region: tc.region, Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes, Pod: &pod}
		e := p.Estimate(r)
		got := e.InstanceType
		for _, a := range e.attached {
			got += " " + a.Type
		}
		switch {
		case got != tc.want:
			t.Errorf("%s %q %v %v %v: got %s (%v)", tc.provider, pod.GPUFamilies, pod.GPUComputeMajor, pod.GPUComputeMinor, pod.GPUComputeCapability, got, e.UnpricedReason)
		case tc.want == "" && (e.UnpricedReason == nil || !strings.Contains(*e.UnpricedReason, "GPU family kepler") && !strings.Contains(*e.UnpricedReason, "compute capability major ≤ 8") &&
			!strings.Contains(*e.UnpricedReason, "compute capability ≥ 13.0")):
			t.Errorf("unpriced reason %v", e.UnpricedReason)
		}
	}
}

// What a pod's selection rules out (NotIn) narrows the node the estimator picks: a NodePool that
// admits any GPU type (AnyGPUType) picks the cheapest, g4dn.xlarge (T4), unless the T4 or what
// it is (its type, family, category, generation, memory, architecture) is ruled out. A type
// that can no longer be created (Azure's V100 sizes) is picked only when nothing else is
// allowed, and then says so.
func TestNotInNarrowsTheNode(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	for _, tc := range []struct {
		provider, region string
		pod              parser.PodGPUs
		x                parser.NodeExclusions
		want, reason     string
	}{
		{"aws", "us-east-1", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{}, "g4dn.xlarge", ""},
		{"aws", "us-east-1", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{InstanceTypes: []string{"G4DN.xlarge"}}, "g4dn.2xlarge", ""},
		{"aws", "us-east-1", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{Families: []string{"g4dn"}}, "g6.xlarge", ""},
		{"aws", "us-east-1", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{GPUNames: []string{"Tesla-T4"}}, "g6.xlarge", ""},
		{"aws", "us-east-1", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{Categories: []string{"g"}}, "gr6.4xlarge", ""},
		{"aws", "us-east-1", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{Generations: []int{4}}, "g6.xlarge", ""},
		{"aws", "us-east-1", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{NodeGPUs: []int{1}}, "g4dn.12xlarge", ""},
		{"aws", "us-east-1", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{GPUMemoryMiB: []int{16384}}, "g6.xlarge", ""},
		{"aws", "us-east-1", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{GPUReportedMiB: []int{15360}}, "g6.xlarge", ""},
		{"aws", "us-east-1", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{GPUFamilies: []string{"turing"}}, "g6.xlarge", ""},
		{"aws", "us-east-1", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{ComputeMajor: []int{7}}, "g6.xlarge", ""},
		{"aws", "us-east-1", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{ComputeMinor: []int{5}}, "g6.xlarge", ""},
		// The architecture NotIn leaves out decides between the L4 and the A10G.
		{"aws", "us-east-1", parser.PodGPUs{GPUReportedMiB: &parser.CountRange{Min: new(20000)}}, parser.NodeExclusions{}, "g6.xlarge", ""},
		{"aws", "us-east-1", parser.PodGPUs{GPUReportedMiB: &parser.CountRange{Min: new(20000)}}, parser.NodeExclusions{GPUFamilies: []string{"ada-lovelace"}}, "g5.xlarge", ""},
		{"azure", "eastus", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{}, "Standard_NC4as_T4_v3", ""},
		{"azure", "eastus", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{AzureGPUNames: []string{"T4"}}, "Standard_NV36ads_A10_v5", ""},
		{"azure", "eastus", parser.PodGPUs{AnyGPUType: true}, parser.NodeExclusions{Families: []string{"NC"}}, "Standard_NV36ads_A10_v5", ""},
		{"azure", "eastus", parser.PodGPUs{InstanceTypes: []string{"Standard_NC6s_v3", "Standard_NC12s_v3"}}, parser.NodeExclusions{}, "Standard_NC6s_v3", "Standard_NC6s_v3 was retired by Azure"},
		{"azure", "eastus", parser.PodGPUs{InstanceTypes: []string{"Standard_NC6s_v3", "Standard_NC24ads_A100_v4"}}, parser.NodeExclusions{}, "Standard_NC24ads_A100_v4", ""},
		{"gcp", "us-central1", parser.PodGPUs{GPUFamilies: []string{"turing", "volta"}}, parser.NodeExclusions{}, "n1-standard-1 nvidia-tesla-t4", ""},
		{"gcp", "us-central1", parser.PodGPUs{GPUFamilies: []string{"turing", "volta"}}, parser.NodeExclusions{GPUNames: []string{"nvidia-tesla-t4"}}, "n1-standard-1 nvidia-tesla-v100", ""},
		{"aws", "us-east-1", parser.PodGPUs{GPUFamilies: []string{"turing"}}, parser.NodeExclusions{GPUNames: []string{"t4"}}, "", "no aws catalog type matching GPU family turing, not t4 holds 1 nvidia.com/gpu"},
	} {
		pod := tc.pod
		pod.Resource, pod.Requested = "nvidia.com/gpu", 1
		if tc.x.String() != "" {
			pod.Excluded = &tc.x
		}
		r := parser.Resource{Address: "Pod/a/b", Provider: tc.provider, Region: tc.region, Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes, Pod: &pod}
		e := p.Estimate(r)
		got := e.InstanceType
		for _, a := range e.attached {
			got += " " + a.Type
		}
		reason := ""
		if e.UnpricedReason != nil {
			reason = *e.UnpricedReason
		}
		if got != tc.want || !strings.HasPrefix(reason, tc.reason) || tc.reason == "" && reason != "" {
			t.Errorf("%s %+v, %s: got %q (%q), want %q (%q)", tc.provider, tc.pod, tc.x, got, reason, tc.want, tc.reason)
		}
	}
}

// GKE GPU sharing keeps the resource's name: with a number of sharers, one nvidia.com/gpu unit is
// that share of a GPU, priced as if every share is used and marked an estimate.
func TestSharedGPUUnits(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	price := func(shared int) Estimate {
		r := parser.Resource{Address: "Deployment/a/b", Provider: "gcp", Region: "us-central1", InstanceType: "g2-standard-4", Quantity: 4,
			PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes, Pod: &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, SharedReplicas: shared}}
		return p.Estimate(r)
	}
	whole, shared := price(0), price(4)
	wm, _ := whole.Monthly()
	sm, _ := shared.Monthly()
	if wm.Decimal(2) != "2063.95" || sm.Decimal(2) != "515.99" || !shared.PriceEstimated || whole.PriceEstimated {
		t.Fatalf("whole %s (estimated %v), shared %s (estimated %v)", wm, whole.PriceEstimated, sm, shared.PriceEstimated)
	}
}

// A resource whose region no manifest names (an AKS pool of a cluster managed elsewhere) is
// priced in the default region with a note saying why, and without a default stays unpriced with
// that reason and the fix.
func TestRegionUnknownTakesTheDefault(t *testing.T) {
	why := "its cluster (kubernetes_cluster_id) is not in this configuration, so its location is unknown"
	r := parser.Resource{Provider: "azure", InstanceType: "Standard_NC24ads_A100_v4", Quantity: 2, PurchaseOption: parser.OnDemand, RegionUnknown: why}
	e := (&Pricer{Catalog: catalog.MustDefault(), DefaultRegion: "eastus"}).Estimate(r)
	m, ok := e.Monthly()
	// 3.673 $/h (eastus) × 730 h × 2 nodes
	if !ok || m.Cents() != expectCents(t, "730", "3.673", "2") || e.Region != "eastus" {
		t.Fatalf("with a default region: monthly %v, region %q, reason %v", m, e.Region, e.UnpricedReason)
	}
	if want := "region eastus from the default (config or --region): " + why; !slices.Contains(e.Notes, want) {
		t.Errorf("notes %q lack %q", e.Notes, want)
	}
	e = (&Pricer{Catalog: catalog.MustDefault()}).Estimate(r)
	if e.MonthlyCost != nil || e.UnpricedReason == nil || *e.UnpricedReason != "no region: "+why+"; set one in .gpuguard.yaml (region) or with --region" {
		t.Errorf("without a default region: monthly %v, reason %v", e.MonthlyCost, e.UnpricedReason)
	}
	if e.GPU == nil || e.GPU.Model == "" {
		t.Errorf("an unpriced pool still names its GPUs: %+v", e.GPU)
	}
}

// Nodes chosen by GPU labels or by instance requirements need a region to be priced: without one
// the reason says so and how to give it, not that no type fits "in region (none)".
func TestChoosingANodeNeedsARegion(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	pod := parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"nvidia-l4"}}
	for name, r := range map[string]parser.Resource{
		"pod by GPU label": {Address: "Job/ml/train", Kind: parser.KindKubernetes, Provider: "gcp", Quantity: 4, PurchaseOption: parser.OnDemand, Pod: &pod},
		"requirements": {Address: "aws_autoscaling_group.abs", Provider: "aws", Quantity: 1, PurchaseOption: parser.OnDemand,
			Requirements: &parser.InstanceRequirements{GPUNames: []string{"a10g"}}},
	} {
		e := p.Estimate(r)
		if e.MonthlyCost != nil || e.UnpricedReason == nil || *e.UnpricedReason != catalog.NoRegion {
			t.Errorf("%s: monthly %v, reason %v, want %q", name, e.MonthlyCost, e.UnpricedReason, catalog.NoRegion)
		}
		r.Region = map[string]string{"gcp": "us-central1", "aws": "us-east-1"}[r.Provider]
		if e := p.Estimate(r); e.MonthlyCost == nil {
			t.Errorf("%s: unpriced with a region: %s", name, *e.UnpricedReason)
		}
	}
}

// An autoscaled resource is priced at its floor and, separately, at its declared maximum, with
// the maximum's spot share; the totals carry both, and a maximum that costs no more (or a
// resource that is not priced) gives none.
func TestScaleMaxIsPricedToo(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	g5 := func(q, spot int, max *parser.ScaleMax) parser.Resource {
		return parser.Resource{Address: "asg", Provider: parser.AWS, Region: "us-east-1", InstanceType: "g5.2xlarge", Quantity: q, SpotQuantity: spot,
			PurchaseOption: parser.OnDemand, ScaleMax: max}
	}
	es := p.EstimateAll([]parser.Resource{
		// 2 on demand; at the maximum, 4 on demand and 6 on spot (1.212 and 0.4848 an hour).
		g5(2, 0, &parser.ScaleMax{Quantity: 10, SpotQuantity: 6, From: "max_size"}),
		// Nothing runs; at the maximum, everything runs on spot.
		g5(0, 0, &parser.ScaleMax{Quantity: 3, SpotQuantity: 3, From: "max_size"}),
		// A Batch environment: 64 vCPUs of g5.2xlarge (8 each) are 8 instances.
		{Address: "batch", Provider: parser.AWS, Region: "us-east-1", InstanceType: "g5.2xlarge", PurchaseOption: parser.OnDemand,
			ScaleMax: &parser.ScaleMax{VCPUs: 64, From: "compute_resources.max_vcpus"}},
		g5(2, 0, &parser.ScaleMax{Quantity: 2, From: "max_size"}),
		{Address: "unknown", Provider: parser.AWS, Region: "us-east-1", InstanceType: "x9.huge", Quantity: 1, ScaleMax: &parser.ScaleMax{Quantity: 5}},
	})
	for i, want := range []struct {
		quantity  int
		cents     int64
		estimated bool
	}{
		{10, expectCents(t, "730", "1.212", "4", "0.4848", "6"), true},
		{3, expectCents(t, "730", "0.4848", "3"), true},
		{8, expectCents(t, "730", "1.212", "8"), false},
	} {
		m := es[i].ScaleMax
		if m == nil || m.Quantity != want.quantity || money.Micros(m.MonthlyCost).Cents() != want.cents || m.PriceEstimated != want.estimated {
			t.Errorf("resource %d: scale max %+v, want %d for %d cents (estimated %v)", i, m, want.quantity, want.cents, want.estimated)
		}
	}
	if es[0].Quantity != 2 || money.Micros(*es[0].MonthlyCost).Cents() != expectCents(t, "730", "1.212", "2") || es[0].CapacitySplit != nil {
		t.Errorf("the floor changed with the maximum: %+v", es[0])
	}
	if es[3].ScaleMax != nil || es[4].ScaleMax != nil {
		t.Errorf("a maximum that costs no more, or of an unpriced resource: %+v, %+v", es[3].ScaleMax, es[4].ScaleMax)
	}
	tot := Sum(es)
	var want money.Micros
	for _, e := range es[:3] {
		want += money.Micros(e.ScaleMax.MonthlyCost)
	}
	want += money.Micros(*es[3].MonthlyCost)
	if tot.MaxMonthlyCost == nil || money.Micros(*tot.MaxMonthlyCost) != want {
		t.Errorf("total at the maximums %v, want %v", tot.MaxMonthlyCost, want)
	}
	if Sum(es[3:]).MaxMonthlyCost != nil {
		t.Errorf("a total at the maximums without any autoscaled resource")
	}
}

// A scheduled group runs its peak for some hours a month, and may run its maximum for others:
// the maximum is priced for its own hours, the floor for the resource's.
func TestScaleMaxHasItsOwnHours(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	e := p.EstimateAll([]parser.Resource{{Address: "asg", Provider: parser.AWS, Region: "us-east-1", InstanceType: "g5.2xlarge", Quantity: 4,
		PurchaseOption: parser.OnDemand, HoursPerMonth: 239.25, ScaleMax: &parser.ScaleMax{Quantity: 4, From: "max_size", HoursPerMonth: 730}}})[0]
	if e.MonthlyCost == nil || money.Micros(*e.MonthlyCost).Cents() != expectCents(t, "239.25", "1.212", "4") {
		t.Fatalf("floor %v, want 4 instances for 239.25 hours", e.MonthlyCost)
	}
	if m := e.ScaleMax; m == nil || money.Micros(m.MonthlyCost).Cents() != expectCents(t, "730", "1.212", "4") {
		t.Errorf("maximum %+v, want 4 instances all month", m)
	}
}

// An unpriced VM names every part the catalog lacks, the machine and its attached GPUs, so one
// fix does not just lead to the next reason; a GPU the catalog has is not named.
func TestUnpricedNamesEveryMissingPart(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	e := p.Estimate(parser.Resource{Address: "vm", Provider: parser.GCP, Region: "us-central1", InstanceType: "f1-micro", Quantity: 1,
		PurchaseOption: parser.OnDemand, Accelerators: []parser.Accelerator{{Type: "nvidia-tesla-p4-vws", Count: 2}, {Type: "nvidia-tesla-t4", Count: 1}}})
	if e.UnpricedReason == nil {
		t.Fatalf("priced: %+v", e)
	}
	r := *e.UnpricedReason
	if !strings.Contains(r, "f1-micro is not in the GCP price catalog") || !strings.Contains(r, "nvidia-tesla-p4-vws is not in the GCP price catalog") || strings.Contains(r, "t4") {
		t.Errorf("reason %q: want the machine and the P4 vWS named, not the T4", r)
	}
}

// An attached GPU the catalog prices in another region only (GCP's N1 GPUs: us-central1) leaves
// the resource unpriced by default, and the reason says what it would cost with the GPU at that
// region's rate and the machine at its own: what region_fallback: nearest then prices.
func TestAttachedGPUMissSaysWhatTheFallbackWouldCost(t *testing.T) {
	r := parser.Resource{Address: "vm", Provider: parser.GCP, Region: "europe-west4", InstanceType: "n1-standard-8",
		Accelerators: []parser.Accelerator{{Type: "nvidia-tesla-t4", Count: 1}}, Quantity: 1, PurchaseOption: parser.OnDemand}
	// gcp_machine_types_by_region.csv: n1-standard-8 0.418336 an hour in europe-west4; the T4
	// 0.35 in us-central1; a full month of N1 is billed at 70 % of list (511 of 730 hours).
	want := money.Micros(expectCents(t, "511", "0.418336", "1", "0.35", "1") * 10000).String()
	e := (&Pricer{Catalog: catalog.MustDefault()}).Estimate(r)
	if e.MonthlyCost != nil || e.UnpricedReason == nil ||
		!strings.HasSuffix(*e.UnpricedReason, "; with nvidia-tesla-t4 at us-central1's rate, the nearest region with one, it would cost "+want+"/month (region_fallback: nearest prices it so)") {
		t.Fatalf("unpriced reason %v (cost %v), want the fallback's %s", e.UnpricedReason, e.MonthlyCost, want)
	}
	fb := (&Pricer{Catalog: catalog.MustDefault().WithNearestRegionFallback()}).Estimate(r)
	if m, ok := fb.Monthly(); !ok || m.String() != want || !fb.PriceEstimated {
		t.Fatalf("with region_fallback: nearest: %v (estimated %v), want %s", fb.MonthlyCost, fb.PriceEstimated, want)
	}
	zero := r
	zero.Quantity = 0
	if e := (&Pricer{Catalog: catalog.MustDefault()}).Estimate(zero); e.UnpricedReason == nil || !strings.Contains(*e.UnpricedReason, "one would cost "+want) {
		t.Fatalf("scaled to zero: %v", e.UnpricedReason)
	}
}

func capability(major, minor int, strict bool) *parser.ComputeBound {
	return &parser.ComputeBound{Capability: parser.Capability{Major: major, Minor: minor}, Strict: strict}
}

// The default region is read as the catalog writes regions, whatever its case and spaces
// ("East US" is eastus): a resource without a region of its own is priced there.
func TestDefaultRegionIsNormalized(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault(), DefaultRegion: " US-Central1 "}
	r := parser.Resource{Address: "vm", Provider: parser.GCP, InstanceType: "g2-standard-4", Quantity: 1, PurchaseOption: parser.OnDemand}
	e := p.EstimateAll([]parser.Resource{r})[0]
	if e.Region != "us-central1" || e.MonthlyCost == nil || money.Micros(*e.MonthlyCost).Cents() != expectCents(t, "730", "0.706832", "1") {
		t.Errorf("region %q, cost %s, unpriced %v", e.Region, amount(e.MonthlyCost), e.UnpricedReason)
	}
}
