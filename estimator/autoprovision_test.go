package estimator

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// napOf is GKE node auto-provisioning's capacity of one GPU type, as the parser reads a cluster
// "c"'s limit of max GPUs on it.
func napOf(accelerator string, max int) parser.Resource {
	return parser.Resource{Address: "c.cluster_autoscaling[" + accelerator + "]", Provider: parser.GCP, Region: "us-central1", PurchaseOption: parser.OnDemand,
		AutoProvision: &parser.AutoProvision{Accelerator: accelerator, MaxGPUs: max, From: "resource_limits " + accelerator + " maximum"},
		SharedLimit:   &parser.SharedLimit{Owner: "c", What: "limit", Limit: float64(max), Unit: accelerator, PerGPU: true}}
}

func hasNote(e Estimate, part string) bool {
	return slices.ContainsFunc(e.Notes, func(n string) bool { return strings.Contains(n, part) })
}

// Auto-provisioned capacity runs nothing until pods wait; it is priced on the machine a pod
// asking for one of its GPUs would get, the cheapest in the region: a G2 for an L4, an N1 VM
// with the GPU attached for a T4, the one-GPU A3 for an H100. Its maximum is the limit's GPUs
// in those machines, an estimate since gpuguard picked the machine.
func TestAutoProvisionedCapacityTakesTheCheapestMachine(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	es := p.EstimateAll([]parser.Resource{napOf("nvidia-l4", 16), napOf("nvidia-tesla-t4", 4), napOf("nvidia-h100-80gb", 8)})
	for i, want := range []struct {
		machine  string
		attached string
		cents    int64
	}{
		{"g2-standard-4", "", expectCents(t, "730", "0.706832", "16")},
		// N1 and its GPUs get the sustained-use discount at a full month: 30% off.
		{"n1-standard-1", "nvidia-tesla-t4", expectCents(t, "511", "0.0475", "4", "0.35", "4")},
		{"a3-highgpu-1g", "", expectCents(t, "730", "11.06125", "8")},
	} {
		e := es[i]
		if e.InstanceType != want.machine || e.Quantity != 0 || e.MonthlyCost == nil || *e.MonthlyCost != 0 || !e.PriceEstimated {
			t.Errorf("%s: %s × %d at %v (estimated %v), want %s", e.Address, e.InstanceType, e.Quantity, amount(e.MonthlyCost), e.PriceEstimated, want.machine)
			continue
		}
		if want.attached != "" && !slices.ContainsFunc(e.PriceSources, func(s PriceSource) bool { return s.InstanceType == want.attached }) {
			t.Errorf("%s: priced without %s: %+v", e.Address, want.attached, e.PriceSources)
		}
		m := e.ScaleMax
		if m == nil || m.Quantity != []int{16, 4, 8}[i] || money.Micros(m.MonthlyCost).Cents() != want.cents || !m.PriceEstimated {
			t.Errorf("%s: maximum %+v, want %d cents", e.Address, m, want.cents)
		}
		if l := e.SharedLimit; l == nil || l.PerInstance != 1 {
			t.Errorf("%s: limit %+v", e.Address, l)
		}
		if !hasNote(e, "priced on "+want.machine) {
			t.Errorf("%s: notes %q", e.Address, e.Notes)
		}
		// The JSON says which GPU type the capacity is for and its limit (GPU007 leaves it out).
		if a := e.AutoProvision; a == nil || a.MaxGPUs == nil || *a.MaxGPUs != m.Quantity || !strings.HasSuffix(e.Address, "["+a.Accelerator+"]") || a.From == "" {
			t.Errorf("%s: auto_provision %+v", e.Address, a)
		}
	}
	// No L4 machine costs less per GPU in the region than the one chosen.
	chosen, _ := p.Catalog.Quote(parser.GCP, "g2-standard-4", "us-central1", parser.OnDemand)
	for _, in := range p.Catalog.Instances(parser.GCP) {
		if in.GPU != "l4" || in.GPUCount < 1 {
			continue
		}
		if q, miss := p.Catalog.Quote(parser.GCP, in.Type, "us-central1", parser.OnDemand); miss == nil && float64(q.Hourly)/in.GPUCount < float64(chosen.Hourly) {
			t.Errorf("%s costs %v per GPU, less than g2-standard-4's %v", in.Type, float64(q.Hourly)/in.GPUCount, chosen.Hourly)
		}
	}
}

// Capacity whose GPU no priced machine carries stays unpriced and says why, never $0; a maximum
// known only at apply is not priced; one smaller than the only machine's GPUs adds no node.
func TestAutoProvisionedCapacityWithoutAMachine(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	unknownMax := napOf("nvidia-l4", 0)
	unknownMax.AutoProvision.MaxUnknown, unknownMax.SharedLimit = true, nil
	noRegion := napOf("nvidia-l4", 4)
	noRegion.Region = ""
	// An A3 Mega carries 8 H100s; its limit allows 4. (europe-west4 prices a3-megagpu-8g.)
	mega := napOf("nvidia-h100-mega-80gb", 4)
	es := p.EstimateAll([]parser.Resource{napOf("nvidia-b200", 8), noRegion, unknownMax})
	for _, e := range es[:2] {
		if e.MonthlyCost != nil || e.UnpricedReason == nil {
			t.Errorf("%s: priced %v", e.Address, amount(e.MonthlyCost))
		}
	}
	if r := *es[0].UnpricedReason; !strings.Contains(r, "the autoscaler picks the machine of each nvidia-b200 node, and none is priced") {
		t.Errorf("reason %q", r)
	}
	if r := *es[1].UnpricedReason; !strings.Contains(r, "region") {
		t.Errorf("reason %q", r)
	}
	if e := es[2]; e.InstanceType != "g2-standard-4" || e.ScaleMax != nil || !e.scaleMaxUnknown || e.AutoProvision == nil || e.AutoProvision.MaxGPUs != nil {
		t.Errorf("maximum known only at apply: %+v (auto_provision %+v)", e, e.AutoProvision)
	}
	// Without a region of its own, the capacity takes the default one, as any resource does.
	withDefault := &Pricer{Catalog: p.Catalog, DefaultRegion: "us-central1"}
	if e := withDefault.EstimateAll([]parser.Resource{noRegion})[0]; e.InstanceType != "g2-standard-4" || e.MonthlyCost == nil || e.ScaleMax == nil || e.ScaleMax.Quantity != 4 {
		t.Errorf("default region: %s, maximum %+v, unpriced %v", e.InstanceType, e.ScaleMax, e.UnpricedReason)
	}
	for _, region := range []string{"europe-west4", "us-east5", "asia-northeast1"} {
		if _, miss := p.Catalog.Quote(parser.GCP, "a3-megagpu-8g", region, parser.OnDemand); miss != nil {
			continue
		}
		mega.Region = region
		e := p.EstimateAll([]parser.Resource{mega})[0]
		if e.InstanceType != "a3-megagpu-8g" || e.ScaleMax != nil || !hasNote(e, "its maximum of 4 GPUs is less than the 8 of one a3-megagpu-8g") {
			t.Errorf("A3 Mega in %s: %s, maximum %+v, notes %q", region, e.InstanceType, e.ScaleMax, e.Notes)
		}
		return
	}
	t.Fatal("no region prices a3-megagpu-8g")
}

// GKE labels a node with the accelerator built into its machine: nvidia-h100-mega-80gb is an
// A3 Mega, nvidia-h100-80gb an A3 High, nvidia-tesla-a100 the 40 GB A2 (not the 80 GB A2
// Ultra). A generic name and a machine without GPUs built in are left to the GPU key.
func TestGKEAcceleratorNamesItsSeries(t *testing.T) {
	for _, c := range []struct {
		machine string
		names   []string
		want    bool
	}{
		{"a3-megagpu-8g", []string{"nvidia-h100-mega-80gb"}, true},
		{"a3-highgpu-8g", []string{"nvidia-h100-mega-80gb"}, false},
		{"a3-megagpu-8g", []string{"nvidia-h100-80gb"}, false},
		{"a3-highgpu-1g", []string{"nvidia-h100-80gb"}, true},
		{"a2-ultragpu-1g", []string{"nvidia-tesla-a100"}, false},
		{"a2-ultragpu-1g", []string{"nvidia-tesla-a100", "nvidia-a100-80gb"}, true},
		{"a2-highgpu-1g", []string{"NVIDIA-TESLA-A100"}, true},
		{"a2-ultragpu-1g", []string{"NVIDIA-TESLA-A100"}, false},
		{"n1-standard-8", []string{"nvidia-l4"}, true},
		{"a3-megagpu-8g", []string{"h100"}, true},
		{"n1-standard-8", []string{"nvidia-tesla-t4"}, true},
		{"a3-highgpu-1g", nil, true},
	} {
		if got := gkeAcceleratorAllows(c.machine, c.names); got != c.want {
			t.Errorf("%s for %q: %v, want %v", c.machine, c.names, got, c.want)
		}
	}
}

// A resource that shares a limit is never priced past what the limit holds of it on its own:
// its autoscaler's maximum is cut to the limit, a maximum known only at apply becomes the
// limit's, and one within the limit stays. With GPUs as the unit, each node takes its
// machine's GPUs. Together with auto-provisioned capacity, the total at the maximums counts no
// more GPUs than the limit, the dearest per GPU first.
func TestSharedLimitCapsEachMaximum(t *testing.T) {
	p := &Pricer{Catalog: catalog.MustDefault()}
	limit := &parser.SharedLimit{Owner: "c", What: "limit of 12 nvidia-l4 GPUs", Limit: 12, Unit: "nvidia-l4", PerGPU: true}
	pool := func(addr string, max *parser.ScaleMax, unknown bool) parser.Resource {
		return parser.Resource{Address: addr, Provider: parser.GCP, Region: "us-central1", InstanceType: "g2-standard-24", Quantity: 1,
			PurchaseOption: parser.OnDemand, SharedLimit: limit, ScaleMax: max, ScaleMaxUnknown: unknown}
	}
	es := p.EstimateAll([]parser.Resource{
		pool("over", &parser.ScaleMax{Quantity: 10, From: "max_node_count"}, false),
		pool("unknown", nil, true),
		pool("within", &parser.ScaleMax{Quantity: 6, From: "max_node_count"}, false),
	})
	monthly := func(nodes int) int64 { return expectCents(t, "730", "2.000833", strconv.Itoa(nodes)) }
	for i, want := range []struct {
		quantity int
		from     string
		note     string
	}{
		{6, "c's limit of 12 nvidia-l4 GPUs", "holds at most 6 of its instances, fewer than the 10 of max_node_count"},
		{6, "c's limit of 12 nvidia-l4 GPUs", "its autoscaler's maximum is known only at apply, but c's limit of 12 nvidia-l4 GPUs holds at most 6"},
		{6, "max_node_count", ""},
	} {
		e := es[i]
		if l := e.SharedLimit; l == nil || l.PerInstance != 2 {
			t.Fatalf("%s: limit %+v", e.Address, l)
		}
		m := e.ScaleMax
		if m == nil || m.Quantity != want.quantity || m.From != want.from || money.Micros(m.MonthlyCost).Cents() != monthly(want.quantity) {
			t.Errorf("%s: maximum %+v", e.Address, m)
		}
		if want.note != "" && !hasNote(e, want.note) || want.note == "" && hasNote(e, "holds at most") {
			t.Errorf("%s: notes %q", e.Address, e.Notes)
		}
		if e.scaleMaxUnknown {
			t.Errorf("%s: maximum still unknown", e.Address)
		}
	}
	// The "over" pool (1 node, 2 GPUs, $1,460.61; up to 6 nodes) and 16 L4s of
	// auto-provisioning in a limit of 12: 10 GPUs left after the pool's floor, all of them the
	// pool's five more nodes ($730.30 a GPU, dearer than a g2-standard-4's $515.99).
	nap := napOf("nvidia-l4", 12)
	nap.SharedLimit = limit
	both := p.EstimateAll([]parser.Resource{pool("over", &parser.ScaleMax{Quantity: 10, From: "max_node_count"}, false), nap})
	tot := Sum(both)
	if want := monthly(6); tot.MaxMonthlyCost == nil || money.Micros(*tot.MaxMonthlyCost).Cents() != want {
		t.Errorf("max %s, want %d cents (the pool at its capped maximum; auto-provisioning's %s not added)", amount(tot.MaxMonthlyCost), want, amount(&both[1].ScaleMax.MonthlyCost))
	}
	if ls := SharedLimits(both); len(ls) != 1 {
		t.Errorf("shared limits %+v", ls)
	}
	// A pool of another root shares that limit only when its limit names the owner's root (a
	// manifest's pod on a Terraform cluster's auto-provisioned nodes); the same owner's name in
	// another root is another cluster's.
	nap.Root = "infra"
	elsewhere := pool("over", &parser.ScaleMax{Quantity: 10, From: "max_node_count"}, false)
	elsewhere.Root = "k8s/serve.yaml"
	if ls := SharedLimits(p.EstimateAll([]parser.Resource{elsewhere, nap})); len(ls) != 0 {
		t.Errorf("another root's limit was shared: %+v", ls)
	}
	named := *limit
	named.Root = "infra"
	elsewhere.SharedLimit = &named
	if ls := SharedLimits(p.EstimateAll([]parser.Resource{elsewhere, nap})); len(ls) != 1 {
		t.Errorf("a limit that names its owner's root was not shared: %+v", ls)
	}
}

// A node group that pods among the estimates run on is counted with them at its own maximum,
// not again within the limit it shares: its growth is not added twice.
func TestLimitedGroupWithPodsCountsOnce(t *testing.T) {
	dollars := func(d float64) *money.Amount { a := money.Amount(money.FromDollars(d)); return &a }
	limit := &parser.SharedLimit{Owner: "c", Limit: 6, Unit: "nvidia-l4", PerInstance: 2}
	group := Estimate{Address: "g", ID: "tf|g", Quantity: 1, MonthlyCost: dollars(1000), SharedLimit: limit,
		ScaleMax: &ScaleMaxCost{Quantity: 3, MonthlyCost: *dollars(3000)}}
	nap := Estimate{Address: "nap", ID: "tf|nap", MonthlyCost: dollars(0), SharedLimit: &parser.SharedLimit{Owner: "c", Limit: 6, Unit: "nvidia-l4", PerInstance: 1},
		ScaleMax: &ScaleMaxCost{Quantity: 4, MonthlyCost: *dollars(1000)}}
	pods := Estimate{Address: "pods", ID: "k8s|pods", NodeGroup: "tf|g", MonthlyCost: dollars(500), ScaleMax: &ScaleMaxCost{Quantity: 8, MonthlyCost: *dollars(4000)}}
	// The group at its maximum ($3,000), the pods past it ($1,000), auto-provisioning's growth
	// within the limit ($1,000); counting the group in the limit too would add its growth again.
	if tot := Sum([]Estimate{group, nap, pods}); tot.MaxMonthlyCost == nil || *tot.MaxMonthlyCost != *dollars(5000) {
		t.Errorf("max %s, want $5,000", amount(tot.MaxMonthlyCost))
	}
}
