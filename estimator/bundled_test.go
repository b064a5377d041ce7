package estimator

import (
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// A GCP machine type known only at apply is named by the GPUs its guest_accelerator declares
// when exactly one machine type carries them built in; several candidates leave it unpriced with
// what each would cost; a GPU that attaches to any N1 VM, or a machine type that is simply not
// set, names nothing.
func TestMachineTypeFromBuiltInGPUs(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	unknown := parser.Unresolved{Attribute: "node_config.0.machine_type", Reason: "var.machine_type has no value"}
	pool := func(acc string, n int, u parser.Unresolved) parser.Resource {
		return parser.Resource{Address: "google_container_node_pool.p", Provider: parser.GCP, Region: "us-east4", Quantity: 2, PurchaseOption: parser.OnDemand,
			Kind: parser.KindTerraform, Unresolved: []parser.Unresolved{u}, Accelerators: []parser.Accelerator{{Type: acc, Count: n}}}
	}
	named := func(typ string) Estimate {
		return p.Estimate(parser.Resource{Provider: parser.GCP, Region: "us-east4", InstanceType: typ, Quantity: 2, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform})
	}
	for acc, want := range map[string]struct {
		n   int
		typ string
	}{
		"nvidia-h100-mega-80gb": {8, "a3-megagpu-8g"},
		"nvidia-tesla-a100":     {2, "a2-highgpu-2g"},
		"nvidia-a100-80gb":      {4, "a2-ultragpu-4g"},
		"nvidia-l4":             {8, "g2-standard-96"},
	} {
		rs := []parser.Resource{pool(acc, want.n, unknown)}
		es := p.EstimateAll(rs)
		e := es[0]
		if e.InstanceType != want.typ || e.MonthlyCost == nil || *e.MonthlyCost != *named(want.typ).MonthlyCost || len(e.Unresolved) != 0 {
			t.Errorf("%d× %s: %s at %v (unresolved %v, reason %v), want %s at %v", want.n, acc, e.InstanceType, e.MonthlyCost, e.Unresolved, e.UnpricedReason, want.typ, named(want.typ).MonthlyCost)
			continue
		}
		if e.PriceEstimated || e.GPU == nil || e.GPU.Count != float64(want.n) {
			t.Errorf("%s: estimated %v, GPUs %+v", acc, e.PriceEstimated, e.GPU)
		}
		if note := strings.Join(e.Notes, "\n"); !strings.Contains(note, "node_config.0.machine_type is known only at apply (var.machine_type has no value)") || !strings.Contains(note, "built into "+want.typ+" alone") {
			t.Errorf("%s: notes %q", acc, e.Notes)
		}
		// The resource itself is resolved, so that fit and recommendations judge the same machine.
		if rs[0].InstanceType != want.typ || len(rs[0].Accelerators) != 0 {
			t.Errorf("%s: resource left as %+v", acc, rs[0])
		}
	}

	// 1× L4 comes with five G2 types: no guess, but the range.
	es := p.EstimateAll([]parser.Resource{pool("nvidia-l4", 1, unknown)})
	lo, hi := named("g2-standard-4").MonthlyCost, named("g2-standard-32").MonthlyCost
	if es[0].MonthlyCost != nil || es[0].UnpricedReason == nil {
		t.Fatalf("1× nvidia-l4 was priced: %+v", es[0])
	}
	want := "unresolved: node_config.0.machine_type (var.machine_type has no value); 1× nvidia-l4 comes built into g2-standard-4, g2-standard-8, g2-standard-12, g2-standard-16, g2-standard-32: in us-east4 it would cost from " +
		money.Micros(*lo).String() + "/month (g2-standard-4) to " + money.Micros(*hi).String() + "/month (g2-standard-32)"
	if *es[0].UnpricedReason != want {
		t.Errorf("reason\n%s\nwant\n%s", *es[0].UnpricedReason, want)
	}

	// A resource that names no region is told the range in the default region.
	noRegion := pool("nvidia-l4", 1, unknown)
	noRegion.Region = ""
	es = (&Pricer{Catalog: p.Catalog, DefaultRegion: "us-east4"}).EstimateAll([]parser.Resource{noRegion})
	if es[0].UnpricedReason == nil || *es[0].UnpricedReason != want {
		t.Errorf("default region: reason %v, want %s", es[0].UnpricedReason, want)
	}

	for name, r := range map[string]parser.Resource{
		"a GPU that attaches to N1":  pool("nvidia-tesla-t4", 1, unknown),
		"machine type not set":       pool("nvidia-h100-mega-80gb", 8, parser.Unresolved{Attribute: "node_config.0.machine_type", Reason: "not set"}),
		"another attribute unknown":  pool("nvidia-h100-mega-80gb", 8, parser.Unresolved{Attribute: "node_count", Reason: "var.n has no value"}),
		"a count no machine carries": pool("nvidia-h100-mega-80gb", 3, unknown),
	} {
		es := p.EstimateAll([]parser.Resource{r})
		if es[0].InstanceType != "" || es[0].MonthlyCost != nil || strings.Contains(*es[0].UnpricedReason, "built into") {
			t.Errorf("%s: %s, %v, %v", name, es[0].InstanceType, es[0].MonthlyCost, *es[0].UnpricedReason)
		}
	}
}
