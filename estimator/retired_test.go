package estimator

import (
	"strings"
	"testing"
	"time"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/parser"
)

// An instance type its cloud has retired cannot run: it is not priced as if it could, and the
// reason says when it was retired, what to move to and what that costs. Before the day it is
// priced with a note, and no commitment is suggested whose term outlasts it.
func TestRetiredInstanceTypes(t *testing.T) {
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	nc6s := parser.Resource{Address: "vm", Provider: parser.Azure, Region: "eastus", InstanceType: "Standard_NC6s_v3", Quantity: 2, PurchaseOption: parser.OnDemand}

	p := &Pricer{Catalog: catalog.MustDefault(), Today: day("2026-11-21")}
	e := p.Estimate(nc6s)
	// Standard_NC24ads_A100_v4 in eastus: 3.673 an hour × 730 × 2 = 5,362.58.
	want := "Standard_NC6s_v3 was retired by Azure on 2025-09-30 (NCv3-series, NVIDIA V100): VMs of this size are stopped and new ones cannot be created; " +
		"move to Standard_NC24ads_A100_v4 (https://learn.microsoft.com/azure/virtual-machines/ncv3-nc6s-nc12s-nc24s-retirement); as Standard_NC24ads_A100_v4 it would cost $5,362.58/month"
	if e.MonthlyCost != nil || e.UnpricedReason == nil || *e.UnpricedReason != want {
		t.Errorf("retired NC6s_v3: cost %v reason %q,\nwant unpriced: %s", e.MonthlyCost, reasonOf(e), want)
	}
	// A retired size the catalog never held, named in another case, is said the same way.
	old := parser.Resource{Address: "vm", Provider: parser.Azure, Region: "eastus", InstanceType: "standard_nc6", Quantity: 1, PurchaseOption: parser.OnDemand}
	if e := p.Estimate(old); e.UnpricedReason == nil || !strings.HasPrefix(*e.UnpricedReason, "Standard_NC6 was retired by Azure on 2023-09-06 (NC-series, NVIDIA Tesla K80)") ||
		!strings.Contains(*e.UnpricedReason, "move to another GPU size (https://learn.microsoft.com/") {
		t.Errorf("retired NC6: reason %v", e.UnpricedReason)
	}

	// Before the retirement: priced, with a note; commitments only where the term ends before it.
	for _, tc := range []struct {
		today string
		terms []parser.PurchaseOption
	}{
		{"2025-01-01", nil},
		{"2024-06-01", []parser.PurchaseOption{parser.Reserved1y}},
		{"2022-06-01", []parser.PurchaseOption{parser.Reserved3y, parser.Reserved1y}},
	} {
		p := &Pricer{Catalog: catalog.MustDefault(), Today: day(tc.today)}
		e := p.Estimate(nc6s)
		if e.MonthlyCost == nil || !strings.Contains(strings.Join(e.Notes, "\n"), "Azure retires Standard_NC6s_v3 on 2025-09-30 (NCv3-series): VMs of this size will be stopped then; plan a move to Standard_NC24ads_A100_v4") {
			t.Errorf("%s: cost %v notes %q: must be priced and say the coming retirement", tc.today, e.MonthlyCost, e.Notes)
		}
		var got []parser.PurchaseOption
		for _, r := range p.Unprofiled(&e, nc6s) {
			got = append(got, parser.PurchaseOption(r.PurchaseOption))
		}
		if strings.Join(asStrings(got), ",") != strings.Join(asStrings(tc.terms), ",") {
			t.Errorf("%s: commitments %v, want %v", tc.today, got, tc.terms)
		}
	}

	// Without a day, the catalog's date is the day: the golden files stay the same from day to day.
	if e := (&Pricer{Catalog: catalog.MustDefault()}).Estimate(nc6s); e.UnpricedReason == nil {
		t.Errorf("no day given: NC6s_v3 priced at %v; the catalog's date is after its retirement", e.MonthlyCost)
	}
	// Sizes still sold are untouched.
	if e := p.Estimate(parser.Resource{Address: "vm", Provider: parser.Azure, Region: "eastus", InstanceType: "Standard_NC24ads_A100_v4", Quantity: 1, PurchaseOption: parser.OnDemand}); e.MonthlyCost == nil || len(e.Notes) != 0 {
		t.Errorf("NC24ads_A100_v4: cost %v notes %q", e.MonthlyCost, e.Notes)
	}
}

func asStrings(opts []parser.PurchaseOption) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = string(o)
	}
	return out
}

func reasonOf(e Estimate) string {
	if e.UnpricedReason == nil {
		return "<nil>"
	}
	return *e.UnpricedReason
}

// A GPU its cloud has retired (Compute Engine's K80, attached to N1 VMs) cannot run either,
// whatever the VM's type: a VM or node pool with it attached, and a pod whose labels name it,
// are unpriced with the day and Google's notice, not "not in the catalog"; before the day, the
// reason is still the catalog's and a note says the retirement is coming.
func TestRetiredAttachedGPU(t *testing.T) {
	const want = "nvidia-tesla-k80 was retired by GCP on 2024-05-01 (NVIDIA Tesla K80): VMs with this GPU attached cannot be created or run; " +
		"move to another GPU (https://cloud.google.com/compute/docs/eol/k80-eol)"
	p := &Pricer{Catalog: catalog.MustDefault(), Today: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)}
	vm := parser.Resource{Address: "vm", Provider: parser.GCP, Region: "us-central1", InstanceType: "n1-standard-8", Quantity: 1, PurchaseOption: parser.OnDemand,
		Accelerators: []parser.Accelerator{{Type: "nvidia-tesla-t4", Count: 1}, {Type: "NVIDIA-TESLA-K80", Count: 2}}}
	if e := p.Estimate(vm); e.MonthlyCost != nil || reasonOf(e) != want {
		t.Errorf("N1 with a K80: cost %v reason %q,\nwant unpriced: %s", e.MonthlyCost, reasonOf(e), want)
	} else if e.GPU == nil || e.GPU.Count != 3 {
		t.Errorf("N1 with a T4 and two K80s: GPU %+v, want 3", e.GPU)
	}
	k80 := vm
	k80.Accelerators = k80.Accelerators[1:]
	if e := p.Estimate(k80); e.GPU == nil || e.GPU.Model != "NVIDIA Tesla K80" {
		t.Errorf("N1 with K80s: GPU %+v, want it named as Google did", e.GPU)
	}
	for _, typ := range []string{"n1-standard-4", ""} {
		pod := parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 1, GPUNames: []string{"nvidia-tesla-k80"}}
		r := parser.Resource{Address: "Pod/default/p", Provider: parser.GCP, Region: "us-central1", InstanceType: typ, Quantity: 1,
			PurchaseOption: parser.OnDemand, Kind: parser.KindKubernetes, Pod: &pod}
		if e := p.Estimate(r); e.MonthlyCost != nil || reasonOf(e) != want {
			t.Errorf("pod on %q labelled K80: cost %v reason %q, want the retirement", typ, e.MonthlyCost, reasonOf(e))
		}
	}

	before := &Pricer{Catalog: catalog.MustDefault(), Today: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)}
	e := before.Estimate(vm)
	if reasonOf(e) != "NVIDIA-TESLA-K80 is not in the GCP price catalog" ||
		!strings.Contains(strings.Join(e.Notes, "\n"), "GCP retires nvidia-tesla-k80 on 2024-05-01 (NVIDIA Tesla K80): VMs with this GPU attached will stop running then") {
		t.Errorf("before the day: reason %q notes %q", reasonOf(e), e.Notes)
	}
	// An instance type named like the GPU is not retired by it: the GPU's row is for accelerators.
	if why, coming := p.retired(parser.Resource{Provider: parser.GCP}, "nvidia-tesla-k80"); why != "" || coming != "" {
		t.Errorf("the K80's row retired a machine type: %q %q", why, coming)
	}
}
