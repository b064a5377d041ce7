package estimator

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// A resource without a workload profile gets the commitments that save money, priced from the
// catalog's commitment rows (or derived from on-demand and marked an estimate), the largest
// saving first; only capacity that runs all month on demand gets them, and of a split between
// on-demand and spot instances only the on-demand part is committed.
func TestCommitmentsWithoutProfile(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	commitments := func(r parser.Resource) (*Estimate, []Recommendation) {
		e := p.Estimate(r)
		return &e, p.Unprofiled(&e, r)
	}

	// gcp_machine_types_by_region.csv, a2-highgpu-1g in us-central1: on demand 3.673385, 1-year
	// commitment 2.314207, 3-year 1.285708 an hour.
	a2 := parser.Resource{Address: "pool", Provider: parser.GCP, Region: "us-central1", InstanceType: "a2-highgpu-1g", Quantity: 15, PurchaseOption: parser.OnDemand}
	e, recs := commitments(a2)
	if len(recs) != 2 {
		t.Fatalf("a2-highgpu-1g: %d recommendations, want the 3-year and the 1-year commitment: %+v", len(recs), recs)
	}
	current := money.Micros(*e.MonthlyCost)
	for i, want := range []struct {
		opt   parser.PurchaseOption
		cents int64
		term  string
	}{
		{parser.Reserved3y, expectCents(t, "730", "1.285708", "15"), "3-year"},
		{parser.Reserved1y, expectCents(t, "730", "2.314207", "15"), "1-year"},
	} {
		r := recs[i]
		cost := money.Micros(r.MonthlyCost)
		if r.Kind != RecCommitment || r.PurchaseOption != string(want.opt) || r.InstanceType != "a2-highgpu-1g" || cost.Cents() != want.cents ||
			money.Micros(r.MonthlySaving) != current-cost || r.PriceEstimated || !strings.Contains(r.Reason, want.term+" commitment") {
			t.Errorf("a2-highgpu-1g recommendation %d: %+v, want %s at %d cents, saving the rest of %d", i, r, want.opt, want.cents, current)
		}
	}

	// A mixed Auto Scaling group: 4 on demand at 1.212, 6 on spot at 1.212 × 0.40; the karpenter
	// table has no commitment rows, so the commitments are on-demand × 0.50 and × 0.70, estimates.
	asg := parser.Resource{Address: "asg", Provider: parser.AWS, Region: "us-east-1", InstanceType: "g5.2xlarge", Quantity: 10, SpotQuantity: 6, PurchaseOption: parser.OnDemand}
	_, recs = commitments(asg)
	if len(recs) != 2 {
		t.Fatalf("mixed group: %d recommendations: %+v", len(recs), recs)
	}
	if got, want := money.Micros(recs[0].MonthlyCost).Cents(), expectCents(t, "730", "0.606", "4", "0.4848", "6"); got != want || !recs[0].PriceEstimated {
		t.Errorf("mixed group, 3-year: %d cents (estimated %v), want %d: the spot part stays on spot", got, recs[0].PriceEstimated, want)
	}
	if got, want := money.Micros(recs[1].MonthlyCost).Cents(), expectCents(t, "730", "0.8484", "4", "0.4848", "6"); got != want {
		t.Errorf("mixed group, 1-year: %d cents, want %d", got, want)
	}
	if want := "its 4 on-demand instances run all month: a 3-year commitment costs less (the 6 on spot stay there)"; recs[0].Reason != want {
		t.Errorf("mixed group reason %q, want %q", recs[0].Reason, want)
	}
	one := asg
	one.Quantity, one.SpotQuantity = 2, 1
	if _, recs := commitments(one); len(recs) == 0 || recs[0].Reason != "its one on-demand instance runs all month: a 3-year commitment costs less (the one on spot stays there)" {
		t.Errorf("one of each: %+v", recs)
	}

	g6 := parser.Resource{Address: "vm", Provider: parser.AWS, Region: "us-east-1", InstanceType: "g6.xlarge", Quantity: 1, PurchaseOption: parser.OnDemand}
	for name, r := range map[string]parser.Resource{
		"spot":       func() parser.Resource { r := g6; r.PurchaseOption = parser.Spot; return r }(),
		"committed":  func() parser.Resource { r := g6; r.PurchaseOption = parser.Reserved1y; return r }(),
		"part-time":  func() parser.Resource { r := g6; r.HoursPerMonth = 120; return r }(),
		"job, hours": func() parser.Resource { r := g6; r.RunsToCompletion = true; return r }(),
		"unpriced":   func() parser.Resource { r := g6; r.InstanceType = "x9.huge"; return r }(),
	} {
		if _, recs := commitments(r); len(recs) != 0 {
			t.Errorf("%s: %+v, want no commitment", name, recs)
		}
	}
	// A job that declares it runs all month is always on.
	job := g6
	job.RunsToCompletion, job.HoursPerMonth = true, 730
	if _, recs := commitments(job); len(recs) != 2 {
		t.Errorf("job running all month: %+v, want both commitments", recs)
	}
}

// A managed service that bills instances at its own price (Vertex AI prediction) is priced at
// the catalog's price of the same machine and GPUs, marked estimated with a note saying it is a
// lower bound; without Compute Engine's sustained-use discount, which an N1 VM with a T4 gets
// all month (30 % off), and without commitments, which do not cover the service. Its spot price
// stays an estimate too.
func TestOwnPriceIsABound(t *testing.T) {
	// The catalog's T4 price is an estimate already: a dated one, from an overlay, shows that
	// the service marks the GPUs' price too.
	t4, err := money.Parse("0.35")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.MustDefault().WithOverlay([]catalog.Price{{Provider: parser.GCP, Type: "nvidia-tesla-t4", Region: "us-central1",
		Option: parser.OnDemand, Hourly: t4, Date: "2026-11-01", Source: "test overlay"}})
	if err != nil {
		t.Fatal(err)
	}
	p := &Pricer{Catalog: cat}
	vm := parser.Resource{Address: "vm", Provider: parser.GCP, Region: "us-central1", InstanceType: "n1-standard-8",
		Accelerators: []parser.Accelerator{{Type: "nvidia-tesla-t4", Count: 1}}, Quantity: 2, PurchaseOption: parser.OnDemand}
	vertex := vm
	vertex.OwnPrice = &parser.OwnPrice{By: "Vertex AI prediction", Higher: true}

	plain := p.Estimate(vm)
	// gcp_machine_types_by_region.csv: n1-standard-8 0.379998 an hour in us-central1; the T4
	// 0.35; a full month of N1 is billed at 70 % of list.
	if got, want := money.Micros(*plain.MonthlyCost).Cents(), expectCents(t, "511", "0.379998", "2", "0.35", "2"); got != want || plain.PriceEstimated {
		t.Fatalf("Compute Engine VM: %d cents (estimated %v), want %d (with the sustained-use discount)", got, plain.PriceEstimated, want)
	}
	e := p.Estimate(vertex)
	if got, want := money.Micros(*e.MonthlyCost).Cents(), expectCents(t, "730", "0.379998", "2", "0.35", "2"); got != want || !e.PriceEstimated || e.PriceBound != BoundLower {
		t.Fatalf("Vertex AI nodes: %d cents (estimated %v, bound %q), want %d at list price, a lower bound", got, e.PriceEstimated, e.PriceBound, want)
	}
	if plain.PriceBound != "" {
		t.Errorf("a Compute Engine VM's price is no bound: %q", plain.PriceBound)
	}
	for _, s := range e.PriceSources {
		if !s.Estimated {
			t.Errorf("price source %+v is not marked estimated", s)
		}
	}
	if !slices.Contains(e.Notes, "Vertex AI prediction bills n1-standard-8 and its GPUs at its own price, higher than Compute Engine's and not in the catalog: priced at Compute Engine's, a lower bound") {
		t.Errorf("notes %q", e.Notes)
	}
	if len(p.Unprofiled(&plain, vm)) == 0 {
		t.Fatal("the Compute Engine VM runs all month on demand: commitments expected")
	}
	if recs := p.Unprofiled(&e, vertex); len(recs) != 0 {
		t.Errorf("Vertex AI nodes: commitments %+v, want none", recs)
	}
	spot := vertex
	spot.PurchaseOption = parser.Spot
	if s := p.Estimate(spot); s.MonthlyCost == nil || !s.PriceEstimated {
		t.Errorf("Vertex AI nodes on spot: %+v", s)
	}
}

// Flex-start VMs are billed below on-demand at prices the catalog lacks: the on-demand price
// stands in as an upper bound, marked estimated, with a note saying so; priced on spot they are
// spot VMs, at the catalog's spot price, not marked by it; no commitment is offered.
func TestFlexStartIsAnUpperBound(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	flex := parser.Resource{Address: "vm", Provider: parser.GCP, Region: "us-central1", InstanceType: "g2-standard-12", Quantity: 1, PurchaseOption: parser.OnDemand,
		OwnPrice: &parser.OwnPrice{By: "Flex-start (Dynamic Workload Scheduler)", Only: parser.OnDemand}}
	e := p.Estimate(flex)
	// gcp_machine_types_by_region.csv: g2-standard-12 1.000416 an hour on demand, 0.562408 spot.
	if got, want := money.Micros(*e.MonthlyCost).Cents(), expectCents(t, "730", "1.000416", "1"); got != want || !e.PriceEstimated || e.PriceBound != BoundUpper {
		t.Fatalf("flex-start: %d cents (estimated %v, bound %q), want %d, an upper bound", got, e.PriceEstimated, e.PriceBound, want)
	}
	if want := "Flex-start (Dynamic Workload Scheduler) bills g2-standard-12 at its own price, lower than Compute Engine's on-demand price and not in the catalog: priced at that, an upper bound"; !slices.Contains(e.Notes, want) {
		t.Errorf("notes %q", e.Notes)
	}
	if recs := p.Unprofiled(&e, flex); len(recs) != 0 {
		t.Errorf("commitments %+v, want none", recs)
	}
	spot := flex
	spot.PurchaseOption = parser.Spot
	s := p.Estimate(spot)
	if got, want := money.Micros(*s.MonthlyCost).Cents(), expectCents(t, "730", "0.562408", "1"); got != want || s.PriceEstimated || len(s.Notes) != 0 || s.PriceBound != "" {
		t.Errorf("on spot: %d cents (estimated %v, notes %q), want %d", got, s.PriceEstimated, s.Notes, want)
	}
}
