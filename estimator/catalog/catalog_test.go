package catalog

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// The figures below are copied from shared/reference/pricing (the rows named in each case), not
// computed by the code under test.
func TestEmbeddedPricesMatchReference(t *testing.T) {
	c := MustDefault()
	cases := []struct {
		provider, typ, region string
		opt                   parser.PurchaseOption
		usd                   string
		date                  string
		estimated             bool
	}{
		{"aws", "p4d.24xlarge", "us-east-1", parser.OnDemand, "21.957642", "2026-07-20", false},
		{"aws", "p5.48xlarge", "us-east-1", parser.OnDemand, "55.04", "2026-07-20", false},
		{"aws", "g6e.xlarge", "us-east-1", parser.OnDemand, "1.861", "2026-07-20", false},
		// AWS spot predates the June 2025 cut: kept, marked an estimate.
		{"aws", "p5.48xlarge", "us-east-1", parser.Spot, "20.9934", "", true},
		{"gcp", "a2-highgpu-1g", "us-central1", parser.OnDemand, "3.673385", "2026-07-30", false},
		{"gcp", "a2-highgpu-1g", "europe-west4", parser.OnDemand, "3.747972", "2026-07-30", false},
		{"gcp", "a2-highgpu-1g", "africa-south1", parser.Spot, "0.65224", "2026-07-30", false},
		{"gcp", "a2-highgpu-1g", "asia-east1", parser.Reserved3y, "1.326577", "2026-07-30", false},
		{"gcp", "n1-standard-8", "us-central1", parser.OnDemand, "0.379998", "2026-07-30", false},
		{"gcp", "nvidia-tesla-t4", "us-central1", parser.OnDemand, "0.35", "", true},
		{"azure", "Standard_ND96isr_H100_v5", "eastus", parser.OnDemand, "98.32", "2024-05-29", false},
		{"azure", "Standard_ND96isr_H100_v5", "eastus", parser.Spot, "18.169536", "2026-09-16", false},
		{"azure", "Standard_NC8as_T4_v3", "eastus", parser.OnDemand, "0.752", "2024-05-29", false},
		{"azure", "Standard_NC4as_T4_v3", "eastus", parser.OnDemand, "0.526", "", true},
		{"azure", "Standard_NV12ads_A10_v5", "eastus", parser.OnDemand, "0.908", "", true},
	}
	for _, tc := range cases {
		p, ok := c.Price(tc.provider, tc.typ, tc.region, tc.opt)
		if !ok {
			t.Errorf("%s %s %s %s: no price", tc.provider, tc.typ, tc.region, tc.opt)
			continue
		}
		want, _ := money.Parse(tc.usd)
		if p.Hourly != want || p.Date != tc.date || p.Estimated != tc.estimated || p.Source == "" {
			t.Errorf("%s %s %s %s = %s date %q est %v source %q; want %s date %q est %v",
				tc.provider, tc.typ, tc.region, tc.opt, p.Hourly.Decimal(6), p.Date, p.Estimated, p.Source, tc.usd, tc.date, tc.estimated)
		}
	}
}

func TestEveryPriceHasSourceAndDateOrIsAnEstimate(t *testing.T) {
	c := MustDefault()
	rows := c.Prices("", "", "")
	if len(rows) < 5000 {
		t.Fatalf("only %d price rows: GCP's 40 regions are missing", len(rows))
	}
	regions := map[string]bool{}
	for _, p := range rows {
		if p.Source == "" || (p.Date == "" && !p.Estimated) || p.Hourly <= 0 {
			t.Errorf("row without source/date: %+v", p)
		}
		if p.Estimated && p.Basis == "" {
			t.Errorf("estimated row without a basis: %+v", p)
		}
		if p.Provider == parser.GCP {
			regions[p.Region] = true
		}
	}
	if len(regions) != 40 {
		t.Errorf("GCP regions = %d, want 40", len(regions))
	}
	if c.Updated() != "2026-09-16" {
		t.Errorf("Updated = %s", c.Updated())
	}
}

func TestInstancesHaveKnownGPUs(t *testing.T) {
	c := MustDefault()
	in, ok := c.Instance("aws", "p4de.24xlarge")
	if !ok || in.GPU != "a100-80gb" || in.GPUCount != 8 || in.GPUMemoryGiB != 80 {
		t.Fatalf("p4de.24xlarge = %+v", in)
	}
	g, _ := c.GPU("h100-80gb")
	if g.ReportedMiB != 81559 || len(g.MIG) != 6 {
		t.Fatalf("h100 = %+v", g)
	}
	if in, ok := c.Instance("azure", "standard_nc24ads_a100_v4"); !ok || in.GPU != "a100-80gb" {
		t.Fatalf("Azure lookup is not case-insensitive: %+v", in)
	}
	for _, in := range c.Instances("") {
		if in.GPUCount <= 0 {
			t.Errorf("%s %s: GPU instance with %g GPUs", in.Provider, in.Type, in.GPUCount)
		}
	}
}

// A vGPU slice (AWS g6f, Azure NVads A10 v5, GCP's fractional G4) has its share of the GPU's
// memory, not the whole GPU's: g4-standard-6 read 96 GiB for its eighth of an RTX PRO 6000.
func TestSlicesHaveTheirShareOfMemory(t *testing.T) {
	c := MustDefault()
	n := 0
	for _, in := range c.Instances("") {
		if in.GPUCount >= 1 {
			continue
		}
		n++
		g, _ := c.GPU(in.GPU)
		if share := in.GPUCount * g.MemoryGiB; in.GPUMemoryGiB > share*1.01 || in.GPUMemoryGiB < share*0.9 {
			t.Errorf("%s %s: %g of a %g GiB %s has %g GiB", in.Provider, in.Type, in.GPUCount, g.MemoryGiB, g.Name, in.GPUMemoryGiB)
		}
	}
	if n < 10 {
		t.Fatalf("only %d slice types in the catalog", n)
	}
}

// The instance lists are made once per catalog: each provider's list holds that provider's
// types only, sorted; the GPU list is the GPU instances of the full list; an overlay catalog
// lists the same types.
func TestInstanceLists(t *testing.T) {
	c := MustDefault()
	over, err := c.WithOverlay(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, provider := range []string{"", parser.AWS, parser.GCP, parser.Azure} {
		all, gpu := c.AllInstances(provider), c.Instances(provider)
		if len(gpu) == 0 || len(all) < len(gpu) {
			t.Fatalf("%q: %d instances, %d with GPUs", provider, len(all), len(gpu))
		}
		var want []Instance
		for i, in := range all {
			if provider != "" && in.Provider != provider {
				t.Errorf("%q lists %s %s", provider, in.Provider, in.Type)
			}
			if i > 0 && (all[i-1].Provider > in.Provider || all[i-1].Provider == in.Provider && all[i-1].Type >= in.Type) {
				t.Errorf("%q: %s listed after %s", provider, in.Type, all[i-1].Type)
			}
			if in.Kind == KindInstance {
				want = append(want, in)
			}
		}
		if !slices.Equal(gpu, want) {
			t.Errorf("%q: GPU list is not the GPU instances of the full list", provider)
		}
		if !slices.Equal(over.Instances(provider), gpu) || !slices.Equal(over.AllInstances(provider), all) {
			t.Errorf("%q: the overlay catalog lists other types", provider)
		}
	}
}

func TestQuoteDerivesMissingOptionsAsEstimates(t *testing.T) {
	c := MustDefault()
	q, miss := c.Quote("aws", "g6e.xlarge", "us-east-1", parser.Spot)
	if miss != nil {
		t.Fatal(miss.Reason)
	}
	// 1.861 × 0.40 (default spot discount, documented in quote.go).
	if q.Hourly != 744400 || !q.Estimated || !strings.Contains(q.Derived, "0.40") {
		t.Fatalf("derived spot = %+v", q)
	}
	q, _ = c.Quote("aws", "g6e.xlarge", "us-east-1", parser.Reserved3y)
	if q.Hourly != 930500 || !q.Estimated {
		t.Fatalf("derived 3y = %+v", q)
	}
	// A dated catalog row is not an estimate.
	q, _ = c.Quote("gcp", "a3-highgpu-8g", "us-central1", parser.Reserved1y)
	if q.Hourly != 61383672 || q.Estimated || q.Derived != "" {
		t.Fatalf("gcp 1y = %+v", q)
	}
}

func TestQuoteMisses(t *testing.T) {
	c := MustDefault()
	_, miss := c.Quote("aws", "p9.96xlarge", "us-east-1", parser.OnDemand)
	if miss == nil || miss.Reason != "p9.96xlarge is not in the AWS price catalog" {
		t.Fatalf("unknown type: %+v", miss)
	}
	_, miss = c.Quote("aws", "p5e.48xlarge", "us-east-1", parser.OnDemand)
	if miss == nil || !strings.Contains(miss.Reason, "no on-demand price") {
		t.Fatalf("type without price: %+v", miss)
	}
	_, miss = c.Quote("aws", "g5.xlarge", "sa-east-1", parser.OnDemand)
	if miss == nil || miss.NearestRegion != "us-east-1" || miss.Nearest == nil || miss.Nearest.Hourly != 1006000 {
		t.Fatalf("missing region: %+v", miss)
	}
	_, miss = c.Quote("gcp", "a2-highgpu-1g", "europe-north2", parser.OnDemand)
	if miss == nil || miss.NearestRegion != "europe-north1" {
		t.Fatalf("nearest GCP region: %+v", miss)
	}
	_, miss = c.Quote("gcp", "a2-highgpu-1g", "", parser.OnDemand)
	if miss == nil || !strings.Contains(miss.Reason, "no region") {
		t.Fatalf("no region: %+v", miss)
	}
}

func TestNearestRegion(t *testing.T) {
	cases := []struct {
		want  string
		cands []string
		got   string
	}{
		{"us-east-1", []string{"us-east-1", "eu-west-1", "ap-south-1"}, "us-east-1"},
		{"eu-west-1", []string{"us-east-1", "eu-west-1"}, "eu-west-1"},
		{"europe-west9", []string{"us-central1", "europe-west1", "europe-west8", "asia-east1"}, "europe-west1"},
		{"westeurope", []string{"eastus", "northeurope"}, "northeurope"},
		// Within a continent the shared name prefix decides: us-east-2 is nearer us-east-1.
		{"us-east-2", []string{"us-west-2", "us-east-1"}, "us-east-1"},
		// Across continents names say nothing (westeurope is not near westus): the reference
		// region of the neighbouring continent.
		{"westeurope", []string{"westus", "eastus", "westus2"}, "eastus"},
		// No South American candidate: North America's, its reference region before name order.
		{"sa-east-1", []string{"ap-northeast-1", "ca-central-1", "us-east-1", "us-west-2"}, "us-east-1"},
		// The Middle East's neighbour is Europe.
		{"me-south-1", []string{"ap-south-1", "eu-central-1", "us-east-1"}, "eu-central-1"},
	}
	for _, c := range cases {
		if got := NearestRegion(c.want, c.cands); got != c.got {
			t.Errorf("NearestRegion(%s, %v) = %s, want %s", c.want, c.cands, got, c.got)
		}
	}
}

func TestOverlayReplacesAndAdds(t *testing.T) {
	c := MustDefault()
	rows, err := ParseOverlay([]byte(`{"gpuguard_overlay": 1, "generated_at": "2026-11-21T00:00:00Z", "rows": [
	  {"provider":"aws","instance_type":"g5.xlarge","region":"us-east-1","purchase_option":"on_demand","usd_per_hour":"0.999","date":"2026-11-21","source":"test"},
	  {"provider":"aws","instance_type":"g5.xlarge","region":"sa-east-1","purchase_option":"on_demand","usd_per_hour":"1.123","date":"2026-11-21","source":"test"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	o, err := c.WithOverlay(rows)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := o.Price("aws", "g5.xlarge", "us-east-1", parser.OnDemand); p.Hourly != 999000 || p.Source != "test" {
		t.Errorf("overlay did not replace: %+v", p)
	}
	if p, ok := o.Price("aws", "g5.xlarge", "sa-east-1", parser.OnDemand); !ok || p.Hourly != 1123000 {
		t.Errorf("overlay did not add: %+v", p)
	}
	if p, _ := c.Price("aws", "g5.xlarge", "us-east-1", parser.OnDemand); p.Hourly != 1006000 {
		t.Errorf("overlay changed the base catalog: %+v", p)
	}
	if o.Updated() != "2026-11-21" {
		t.Errorf("updated = %s", o.Updated())
	}
	for _, bad := range []string{
		`{"gpuguard_overlay": 1, "rows": [{"provider":"aws","instance_type":"g5.xlarge","region":"us-east-1","purchase_option":"on_demand","usd_per_hour":"1","source":"x"}]}`,
		`{"gpuguard_overlay": 1, "rows": [{"provider":"aws","instance_type":"g5.xlarge","region":"us-east-1","purchase_option":"on_demand","usd_per_hour":"0","date":"2026-01-01","source":"x"}]}`,
		`{"gpuguard_overlay": 1, "rows": [{"provider":"aws","instance_type":"g5.xlarge","region":"us-east-1","purchase_option":"lease","usd_per_hour":"1","date":"2026-01-01","source":"x"}]}`,
		`{"gpuguard_overlay": 2, "rows": []}`,
		`{"gpuguard_overlay": 1, "rows": [], "extra": true}`,
		"my notes about prices\nnothing here\n",
		"provider,instance_type,region\naws,g5.xlarge,us-east-1\n",
	} {
		if _, err := ParseOverlay([]byte(bad)); err == nil {
			t.Errorf("overlay accepted: %s", bad)
		}
	}
}

// A quoted field may span lines; the error names the line its record starts on.
func TestOverlayCSVErrorLine(t *testing.T) {
	csv := "provider,instance_type,region,purchase_option,usd_per_hour,estimated,date,source,basis\n" +
		"aws,g6.xlarge,us-east-1,on_demand,0.8048,false,2026-07-20,\"AWS price list,\nread by hand\",\n" +
		"aws,g6.2xlarge,us-east-1,on_demand,-1,false,2026-07-20,AWS price list,\n"
	_, err := ParseOverlay([]byte(csv))
	if err == nil || !strings.Contains(err.Error(), "overlay:4:") || !strings.Contains(err.Error(), "positive") {
		t.Fatalf("err = %v, want the record on line 4 named", err)
	}
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func TestAgeDays(t *testing.T) {
	c := MustDefault()
	updated, err := time.Parse(time.DateOnly, c.Updated())
	if err != nil {
		t.Fatalf("the embedded catalog's date %q: %v", c.Updated(), err)
	}
	for _, tc := range []struct {
		now  time.Time
		want int
	}{
		{updated.Add(23 * time.Hour), 0},
		{updated.AddDate(0, 0, 66).Add(12 * time.Hour), 66},
		{updated.AddDate(0, 0, -3), 0}, // a clock behind the catalog
		{time.Date(updated.Year(), updated.Month(), updated.Day()+1, 0, 30, 0, 0, time.FixedZone("UTC+2", 2*3600)), 0},
	} {
		if got, ok := c.AgeDays(tc.now); !ok || got != tc.want {
			t.Errorf("AgeDays(%s) = %d, %v; want %d", tc.now, got, ok, tc.want)
		}
	}
	if _, ok := (&Catalog{}).AgeDays(updated); ok {
		t.Error("a catalog without dated prices has no age")
	}
}

// A region without a price stays unpriced unless the nearest-region fallback is asked for; then
// it is the nearest region's rate, marked an estimate that names both regions.
func TestNearestRegionFallback(t *testing.T) {
	c := MustDefault()
	if _, miss := c.Quote(parser.AWS, "g5.xlarge", "sa-east-1", parser.OnDemand); miss == nil || miss.NearestRegion != "us-east-1" {
		t.Fatalf("sa-east-1 priced without the fallback: %+v", miss)
	}
	f := c.WithNearestRegionFallback()
	q, miss := f.Quote(parser.AWS, "g5.xlarge", "sa-east-1", parser.OnDemand)
	want, _ := c.Quote(parser.AWS, "g5.xlarge", "us-east-1", parser.OnDemand)
	if miss != nil || q.Hourly != want.Hourly || !q.Estimated || !strings.Contains(q.Derived, "no sa-east-1 price in the catalog: us-east-1's rate") {
		t.Fatalf("fallback quote %+v, miss %+v", q, miss)
	}
	// Spot derived from on-demand keeps both explanations.
	q, _ = f.Quote(parser.AWS, "g5.xlarge", "sa-east-1", parser.Reserved3y)
	if !strings.Contains(q.Derived, "on-demand × 0.50") || !strings.Contains(q.Derived, "us-east-1's rate") {
		t.Fatalf("derived fallback: %q", q.Derived)
	}
	// The catalog it came from is unchanged, and a priced region is not marked.
	if _, miss := c.Quote(parser.AWS, "g5.xlarge", "sa-east-1", parser.OnDemand); miss == nil {
		t.Fatal("WithNearestRegionFallback changed the catalog it was called on")
	}
	if q, _ := f.Quote(parser.AWS, "g5.xlarge", "us-east-1", parser.OnDemand); q.Estimated || q.Derived != "" {
		t.Fatalf("a priced region was marked: %+v", q)
	}
}

// Every GPU the attach table names is an accelerator of the catalog, counts ascend and larger
// counts never allow a smaller VM; the accelerators it leaves out come only in their own
// machine types (L4 in G2, A100 in A2).
func TestAttachLimits(t *testing.T) {
	c := MustDefault()
	for acc, limits := range attachLimits {
		in, ok := c.Instance("gcp", acc)
		if !ok || in.Kind != KindAccelerator {
			t.Errorf("%s is not a GCP accelerator of the catalog", acc)
		}
		for i := 1; i < len(limits); i++ {
			a, b := limits[i-1], limits[i]
			if b.GPUs <= a.GPUs || b.MaxVCPUs < a.MaxVCPUs || b.MaxMemoryGiB < a.MaxMemoryGiB {
				t.Errorf("%s: %+v then %+v", acc, a, b)
			}
		}
	}
	for _, in := range c.AllInstances("gcp") {
		if in.Kind == KindAccelerator && AttachLimits(in.Type) == nil && in.Type != "nvidia-l4" && in.Type != "nvidia-tesla-a100" {
			t.Errorf("accelerator %s: attached to N1 or not? add it to attachLimits or this list", in.Type)
		}
	}
	if got := AttachLimits("nvidia-tesla-v100"); len(got) != 4 || got[0] != (AttachLimit{1, 12, 78}) {
		t.Errorf("V100: %+v", got)
	}
}

// AWS regions other than us-east-1 are priced from the dated us-east-1 rate and the family's
// regional ratio, marked estimates that show the ratio; us-east-1 stays the dated Price List
// figure, and a region the regional table does not list for the family stays unpriced.
func TestAWSRegionalPrices(t *testing.T) {
	c := MustDefault()
	home, _ := c.Price(parser.AWS, "g5.xlarge", "us-east-1", parser.OnDemand)
	if home.Estimated || home.Date != "2026-07-20" {
		t.Fatalf("us-east-1: %+v", home)
	}
	// eu-west-1: g5.12xlarge costs 6.33167 there against 5.672 in us-east-1.
	p, ok := c.Price(parser.AWS, "g5.xlarge", "eu-west-1", parser.OnDemand)
	wantHourly := int64(math.Round(1.006 * 6.33167 / 5.672 * 1e6))
	if !ok || !p.Estimated || p.Date != "" || abs(int64(p.Hourly)-wantHourly) > 1 ||
		!strings.Contains(p.Basis, "g5.12xlarge's eu-west-1/us-east-1 ratio 1.1163") || !strings.Contains(p.Source, "skypilot-catalog") {
		t.Fatalf("eu-west-1: %+v (want %d)", p, wantHourly)
	}
	// The P4 ratio carries over the June 2025 cut: the post-cut us-east-1 rate × the old ratio.
	p, ok = c.Price(parser.AWS, "p4d.24xlarge", "eu-west-1", parser.OnDemand)
	if want := int64(math.Round(21.957642 * 35.39655 / 32.7726 * 1e6)); !ok || abs(int64(p.Hourly)-want) > 1 {
		t.Fatalf("p4d eu-west-1: %+v, want %d", p, want)
	}
	// Spot and commitments in a derived region come from its on-demand estimate.
	if q, miss := c.Quote(parser.AWS, "g5.xlarge", "eu-west-1", parser.Spot); miss != nil || !q.Estimated {
		t.Fatalf("spot in eu-west-1: %+v %+v", q, miss)
	}
	if _, ok := c.Price(parser.AWS, "g5.xlarge", "sa-east-1", parser.OnDemand); ok {
		t.Fatal("sa-east-1 priced: the regional table has no g5 there")
	}
	// Accelerator families have their own ratio: Inferentia2 costs ×1.25 in eu-west-1 (the
	// snapshot's inf2.xlarge, 0.94775/0.7582), applied to every size of the family.
	p, ok = c.Price(parser.AWS, "inf2.48xlarge", "eu-west-1", parser.OnDemand)
	if want := int64(math.Round(12.98127 * 0.94775 / 0.7582 * 1e6)); !ok || !p.Estimated || abs(int64(p.Hourly)-want) > 1 ||
		!strings.Contains(p.Basis, "inf2.xlarge's eu-west-1/us-east-1 ratio 1.2500") {
		t.Fatalf("inf2.48xlarge eu-west-1: %+v, want %d", p, want)
	}
	// Trainium: the snapshot prices trn1 in us-west-2 and us-east-2 (as in us-east-1), and lists
	// ap-south-1 without a price, which prices nothing there.
	if p, ok := c.Price(parser.AWS, "trn1.32xlarge", "us-west-2", parser.OnDemand); !ok || p.Hourly != 21500000 || !p.Estimated {
		t.Fatalf("trn1.32xlarge us-west-2: %+v", p)
	}
	if _, ok := c.Price(parser.AWS, "trn1.32xlarge", "ap-south-1", parser.OnDemand); ok {
		t.Fatal("trn1 priced in ap-south-1, which the snapshot lists without a price")
	}
	// Families the regional table lacks are not extrapolated from others: the snapshot predates
	// g6f, whose L4 slices cost differently from g6.
	if _, ok := c.Price(parser.AWS, "g6f.xlarge", "eu-west-1", parser.OnDemand); ok {
		t.Fatal("g6f priced in eu-west-1 without a regional figure for its family")
	}
}

func TestAzureRegionalPrices(t *testing.T) {
	c := MustDefault()
	// Dated eastus price (2024-05-29) × the type's westus/eastus ratio in the snapshot
	// (127.816/98.32 = 1.3).
	p, ok := c.Price(parser.Azure, "Standard_ND96isr_H100_v5", "westus", parser.OnDemand)
	if !ok || !p.Estimated || p.Date != "" || p.Hourly != 127816000 ||
		!strings.Contains(p.Basis, "eastus price (2024-05-29) × Standard_ND96isr_H100_v5's westus/eastus ratio 1.3000") {
		t.Fatalf("ND96isr westus: %+v", p)
	}
	// An undated eastus figure from the same snapshot gives the snapshot's regional price.
	p, ok = c.Price(parser.Azure, "Standard_NC24ads_A100_v4", "southcentralus", parser.OnDemand)
	if !ok || !p.Estimated || p.Hourly != 4408000 {
		t.Fatalf("NC24ads southcentralus: %+v", p)
	}
	// Spot ratios come from the snapshot's spot prices.
	p, ok = c.Price(parser.Azure, "Standard_NC24ads_A100_v4", "westus3", parser.Spot)
	if !ok || !p.Estimated || p.Hourly != 404030 {
		t.Fatalf("NC24ads westus3 spot: %+v", p)
	}
	// The snapshot gives the H100 types a "spot" price equal to on-demand: no spot ratio is taken
	// from it, so the regional spot price is derived from on-demand like any missing option.
	if _, ok := c.Price(parser.Azure, "Standard_ND96isr_H100_v5", "westus", parser.Spot); ok {
		t.Fatal("ND96isr westus spot taken from the snapshot's spot = on-demand figure")
	}
	if q, miss := c.Quote(parser.Azure, "Standard_ND96isr_H100_v5", "westus", parser.Spot); miss != nil || !q.Estimated || q.Hourly >= 127816000 {
		t.Fatalf("ND96isr westus spot quote: %+v %+v", q, miss)
	}
	// Regions the snapshot lacks stay unpriced.
	if _, ok := c.Price(parser.Azure, "Standard_NC24ads_A100_v4", "westeurope", parser.OnDemand); ok {
		t.Fatal("westeurope priced: the snapshot covers US regions only")
	}
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// Every retirement on file is dated, sourced from the provider's own announcement, and agrees
// with the catalog about the GPU of the types the catalog holds.
func TestRetirementTable(t *testing.T) {
	f, err := dataFS.Open("data/retired.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := MustDefault()
	n := 0
	if err := readTable("retired.csv", f, func(r record) error {
		n++
		x, ok := Retired(r.s("provider"), strings.ToUpper(r.s("instance_type")))
		switch {
		case !ok:
			t.Errorf("%s: not found by Retired, whatever its case", r.s("instance_type"))
		case x.Provider == "azure" && !strings.HasPrefix(x.Source, "https://learn.microsoft.com/") && !strings.HasPrefix(x.Source, "https://aka.ms/"):
			t.Errorf("%s: source %q is not Microsoft's", x.Type, x.Source)
		case x.Provider == "gcp" && !strings.HasPrefix(x.Source, "https://cloud.google.com/"):
			t.Errorf("%s: source %q is not Google's", x.Type, x.Source)
		case x.Provider != "azure" && x.Provider != "gcp":
			t.Errorf("%s: provider %q", x.Type, x.Provider)
		case x.Accelerator != (x.Provider == "gcp"):
			t.Errorf("%s: a %s retirement of a %s: Azure retires sizes, GCP the GPUs attached to N1", x.Type, x.Provider, map[bool]string{true: "GPU", false: "size"}[x.Accelerator])
		case (x.Provider == "azure") != strings.HasPrefix(x.Type, "Standard_") || x.Series == "" || x.GPU == "":
			t.Errorf("%s: incomplete row %+v", x.Type, x)
		}
		if _, ok := c.GPU(strings.TrimPrefix(x.Type, "nvidia-")); x.Accelerator && ok {
			t.Errorf("%s: retired, yet the catalog still has it as a GPU", x.Type)
		}
		if in, ok := c.Instance(x.Provider, x.Type); ok {
			g, _ := c.GPU(in.GPU)
			if !strings.Contains(x.GPU, strings.TrimPrefix(strings.Fields(g.Name)[1], "Tesla ")) {
				t.Errorf("%s: retired as %s, but the catalog says %s", x.Type, x.GPU, g.Name)
			}
		}
		if in, ok := c.Instance(x.Provider, x.Successor); x.Successor != "" && strings.HasPrefix(x.Successor, "Standard_") && (!ok || in.GPUCount == 0) {
			t.Errorf("%s: successor %s is not a GPU type in the catalog", x.Type, x.Successor)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n < 41 {
		t.Errorf("%d retirements read, want the 41 on file", n)
	}
	if _, ok := Retired("azure", "Standard_NC24ads_A100_v4"); ok {
		t.Error("a size still sold is said to be retired")
	}
}
