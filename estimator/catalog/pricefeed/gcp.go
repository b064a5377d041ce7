package pricefeed

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// GCPComputeService is Compute Engine's service id in the Cloud Billing Catalog.
const GCPComputeService = "6F81-5844-456A"

// GCPURL lists Compute Engine's SKUs; it needs an API key.
// https://cloud.google.com/billing/docs/reference/rest/v1/services.skus/list
const GCPURL = "https://cloudbilling.googleapis.com/v1/services/" + GCPComputeService + "/skus"

// GCPSource names the GCP figures in the catalog.
const GCPSource = "GCP Cloud Billing Catalog API (Compute Engine SKUs; list prices, no sustained-use discount)"

// GCPPage is one page of services.skus.list.
type GCPPage struct {
	Skus          []GCPSku `json:"skus"`
	NextPageToken string   `json:"nextPageToken"`
}

// GCPSku is one SKU.
type GCPSku struct {
	SkuID       string `json:"skuId"`
	Description string `json:"description"`
	Category    struct {
		ResourceFamily string `json:"resourceFamily"`
		ResourceGroup  string `json:"resourceGroup"`
		UsageType      string `json:"usageType"`
	} `json:"category"`
	ServiceRegions []string `json:"serviceRegions"`
	PricingInfo    []struct {
		EffectiveTime     string `json:"effectiveTime"`
		PricingExpression struct {
			UsageUnit   string `json:"usageUnit"`
			TieredRates []struct {
				StartUsageAmount float64 `json:"startUsageAmount"`
				UnitPrice        struct {
					CurrencyCode string `json:"currencyCode"`
					Units        string `json:"units"`
					Nanos        int64  `json:"nanos"`
				} `json:"unitPrice"`
			} `json:"tieredRates"`
		} `json:"pricingExpression"`
	} `json:"pricingInfo"`
}

// ParseGCPPage decodes one page (or a saved response).
func ParseGCPPage(r io.Reader) (GCPPage, error) {
	var p GCPPage
	if err := json.NewDecoder(r).Decode(&p); err != nil {
		return GCPPage{}, fmt.Errorf("not a Cloud Billing Catalog response: %w", err)
	}
	if p.Skus == nil {
		return GCPPage{}, fmt.Errorf("not a Cloud Billing Catalog response: no skus")
	}
	return p, nil
}

// nanoDollars is an amount in 1e-9 dollars: the API's own precision, kept while composing a
// machine's price so that a per-GiB price times 1,360 GiB loses nothing.
type nanoDollars int64

// micros rounds to the catalog's micro-dollars.
func (n nanoDollars) micros() money.Micros {
	if n >= 0 {
		return money.Micros((n + 500) / 1000)
	}
	return money.Micros((n - 500) / 1000)
}

// times multiplies by a count that may be fractional (85 GiB, 0.25 GPU), rounding to a nano.
func (n nanoDollars) times(f float64) nanoDollars {
	return nanoDollars(math.Round(float64(n) * f))
}

func (n nanoDollars) decimal() string { return strconv.FormatFloat(float64(n)/1e9, 'f', -1, 64) }

// UnitPrice reads a Money value (units + nanos/1e9 dollars) exactly, in nano-dollars.
func UnitPrice(units string, nanos int64) (int64, error) {
	u := int64(0)
	if strings.TrimSpace(units) != "" {
		var err error
		if u, err = strconv.ParseInt(strings.TrimSpace(units), 10, 64); err != nil {
			return 0, fmt.Errorf("units %q: %w", units, err)
		}
	}
	if nanos <= -1e9 || nanos >= 1e9 {
		return 0, fmt.Errorf("nanos %d out of range", nanos)
	}
	if u > 9_000_000_000 || u < -9_000_000_000 {
		return 0, fmt.Errorf("units %d out of range", u)
	}
	return u*1e9 + nanos, nil
}

// SKU descriptions, in the patterns the public tooling built on this API matches on.
var (
	// "A2 Instance Core running in Americas", "Spot Preemptible N1 Predefined Instance Ram running in EMEA"
	gcpMachineSku = regexp.MustCompile(`^(?:Spot Preemptible )?([A-Z][0-9]+(?: [A-Z][a-z]+)*?) Instance (Core|Ram) running in `)
	// "Commitment v1: A2 Cpu in Americas for 1 Year", "Commitment v1: Ram in Americas for 3 Years" (N1)
	gcpCommitSku = regexp.MustCompile(`^Commitment v1: (?:([A-Z][0-9]+(?: [A-Z][a-z]+)*) )?(Cpu|Ram) in .* for ([13]) Years?$`)
	// "Nvidia Tesla T4 GPU running in Americas", "Nvidia L4 GPU attached to Spot Preemptible VMs
	// running in Asia", "Commitment v1: Nvidia Tesla A100 GPU in Americas for 1 Year"
	gcpGPUSku = regexp.MustCompile(`^(?:Commitment v1: )?(?:Nvidia )?(.+?) GPU(?: attached to Spot Preemptible VMs)? (?:running )?in `)
)

var gcpUsage = map[string]parser.PurchaseOption{
	"OnDemand": parser.OnDemand, "Preemptible": parser.Spot, "Commit1Yr": parser.Reserved1y, "Commit3Yr": parser.Reserved3y,
}

// gcpPart is one priced component: a vCPU or GiB of a series, or a GPU of a model.
type gcpPart struct {
	kind string // core, ram, gpu
	name string // series ("A2", "N1") or GPU model ("tesla a100")
	opt  parser.PurchaseOption
}

type gcpParts struct {
	price map[gcpPart]map[string]nanoDollars // by region
	skus  map[gcpPart]map[string]string      // the SKU's description by region, for the basis
}

func (g *gcpParts) add(p gcpPart, region string, v nanoDollars, desc string) {
	if g.price == nil {
		g.price, g.skus = map[gcpPart]map[string]nanoDollars{}, map[gcpPart]map[string]string{}
	}
	if g.price[p] == nil {
		g.price[p], g.skus[p] = map[string]nanoDollars{}, map[string]string{}
	}
	g.price[p][region] = v
	g.skus[p][region] = desc
}

// classify tells what a SKU prices, or why it is left out.
func classifySKU(s GCPSku) (gcpPart, string) {
	opt, ok := gcpUsage[s.Category.UsageType]
	if !ok {
		return gcpPart{}, "usage type " + s.Category.UsageType
	}
	d := strings.TrimSpace(s.Description)
	if m := gcpMachineSku.FindStringSubmatch(d); m != nil {
		series := strings.TrimSuffix(m[1], " Predefined")
		return gcpPart{kind: map[string]string{"Core": "core", "Ram": "ram"}[m[2]], name: series, opt: opt}, ""
	}
	if m := gcpCommitSku.FindStringSubmatch(d); m != nil {
		series := m[1]
		if series == "" {
			series = "N1" // the resource-based commitments without a series are N1's
		}
		return gcpPart{kind: map[string]string{"Cpu": "core", "Ram": "ram"}[m[2]], name: series, opt: opt}, ""
	}
	if m := gcpGPUSku.FindStringSubmatch(d); m != nil && (s.Category.ResourceGroup == "GPU" || strings.Contains(d, "GPU")) {
		return gcpPart{kind: "gpu", name: strings.ToLower(m[1]), opt: opt}, ""
	}
	return gcpPart{}, "not a machine or GPU SKU"
}

// AddGCPSkus records the hourly price of each machine core, GiB of memory and GPU the SKUs hold.
func AddGCPSkus(res *Result, parts *gcpParts, skus []GCPSku, keep func(string) bool) {
	for _, s := range skus {
		part, why := classifySKU(s)
		if why != "" {
			res.skip(why)
			continue
		}
		if len(s.PricingInfo) == 0 || len(s.PricingInfo[0].PricingExpression.TieredRates) == 0 {
			res.skip("no price")
			continue
		}
		pe := s.PricingInfo[0].PricingExpression
		wantUnit := map[string]string{"core": "h", "ram": "GiBy.h", "gpu": "h"}[part.kind]
		if pe.UsageUnit != wantUnit {
			res.skip("unit " + pe.UsageUnit)
			continue
		}
		// The first tier is the list price (compute SKUs have one tier).
		rate := pe.TieredRates[0]
		if rate.UnitPrice.CurrencyCode != "" && rate.UnitPrice.CurrencyCode != "USD" {
			res.skip("not USD")
			continue
		}
		v, err := UnitPrice(rate.UnitPrice.Units, rate.UnitPrice.Nanos)
		if err != nil || v <= 0 {
			res.skip("unreadable price")
			continue
		}
		for _, region := range s.ServiceRegions {
			if strings.TrimSpace(region) != "" && keep(region) {
				parts.add(part, parser.NormalizeRegion(region), nanoDollars(v), s.Description)
			}
		}
	}
}

// gcpGPUNames are the SKU model names of each GPU of the catalog, most specific first.
var gcpGPUNames = map[string][]string{
	"a100-40gb":    {"tesla a100", "a100 40gb", "a100"},
	"a100-80gb":    {"tesla a100 80gb", "a100 80gb"},
	"h100-80gb":    {"h100 80gb", "h100"},
	"h200":         {"h200 141gb", "h200"},
	"b200":         {"b200"},
	"l4":           {"l4"},
	"t4":           {"tesla t4"},
	"p4":           {"tesla p4"},
	"p100":         {"tesla p100"},
	"v100-16gb":    {"tesla v100"},
	"rtx-pro-6000": {"rtx pro 6000", "rtx pro 6000 blackwell"},
}

// seriesOf names a machine type's series as SKUs do: a2-highgpu-1g → A2, a3-megagpu-8g → "A3
// Mega" first, then A3.
func seriesOf(machine string) []string {
	prefix, rest, _ := strings.Cut(machine, "-")
	s := strings.ToUpper(prefix)
	variant, _, _ := strings.Cut(rest, "-")
	for _, v := range []string{"mega", "ultra", "edge"} {
		if strings.HasPrefix(variant, v) {
			return []string{s + " " + strings.ToUpper(v[:1]) + v[1:], s}
		}
	}
	return []string{s}
}

func gpuNames(in catalog.Instance) []string {
	names := gcpGPUNames[in.GPU]
	if strings.Contains(in.Type, "megagpu") {
		var mega []string
		for _, n := range names {
			mega = append(mega, n+" mega")
		}
		names = append(mega, names...)
	}
	return names
}

// ComposeGCP prices the catalog's GCP machine types from their parts: a machine type is its
// vCPUs × the series' core price + its memory × the series' GiB price + its GPUs × the GPU's
// price (A2, A3, G2 and G4 include their GPUs; N1 VMs have none, and a GPU attached to N1 is
// priced on its own as an accelerator row). This is how Google bills them and how public
// calculators rebuild machine prices from this API.
func ComposeGCP(res *Result, parts *gcpParts, instances []catalog.Instance, date string) []catalog.Price {
	var set rowSet
	missing := map[string]bool{}
	for _, in := range instances {
		for _, opt := range parser.PurchaseOptions {
			switch in.Kind {
			case "accelerator":
				for _, name := range gpuNames(in) {
					if prices := parts.price[gcpPart{"gpu", name, opt}]; prices != nil {
						for region, v := range prices {
							set.add(catalog.Price{Provider: parser.GCP, Type: in.Type, Region: region, Option: opt, Hourly: v.micros(), Date: date,
								Source: GCPSource, Basis: "per GPU: " + parts.skus[gcpPart{"gpu", name, opt}][region]}, "")
						}
						break
					}
				}
			case "instance", "vm":
				var core, ram gcpPart
				found := false
				for _, s := range seriesOf(in.Type) {
					core, ram = gcpPart{"core", s, opt}, gcpPart{"ram", s, opt}
					if parts.price[core] != nil && parts.price[ram] != nil {
						found = true
						break
					}
				}
				if !found {
					if opt == parser.OnDemand {
						missing[fmt.Sprintf("%s (no %s core and RAM SKUs)", in.Type, seriesOf(in.Type)[0])] = true
					}
					continue
				}
				var gpu gcpPart
				if in.GPUCount > 0 {
					ok := false
					for _, name := range gpuNames(in) {
						gpu = gcpPart{"gpu", name, opt}
						if parts.price[gpu] != nil {
							ok = true
							break
						}
					}
					if !ok {
						if opt == parser.OnDemand {
							missing[fmt.Sprintf("%s (no %s GPU SKU)", in.Type, in.GPU)] = true
						}
						continue
					}
				}
				for region, c := range parts.price[core] {
					r, ok := parts.price[ram][region]
					if !ok {
						continue
					}
					total := c.times(float64(in.VCPU)) + r.times(in.MemoryGiB)
					basis := fmt.Sprintf("%d vCPU × $%s + %s GiB × $%s", in.VCPU, c.decimal(), trimFloat(in.MemoryGiB), r.decimal())
					if in.GPUCount > 0 {
						g, ok := parts.price[gpu][region]
						if !ok {
							continue
						}
						total += g.times(in.GPUCount)
						basis += fmt.Sprintf(" + %s GPU × $%s", trimFloat(in.GPUCount), g.decimal())
					}
					basis += " (SKUs: " + parts.skus[core][region] + "; " + parts.skus[ram][region]
					if in.GPUCount > 0 {
						basis += "; " + parts.skus[gpu][region]
					}
					basis += ")"
					set.add(catalog.Price{Provider: parser.GCP, Type: in.Type, Region: region, Option: opt, Hourly: total.micros(), Date: date,
						Source: GCPSource, Basis: basis}, "")
				}
			}
		}
	}
	byReason := map[string][]string{}
	for m := range missing {
		typ, reason, _ := strings.Cut(m, " (")
		reason = strings.TrimSuffix(reason, ")")
		byReason[reason] = append(byReason[reason], typ)
	}
	var reasons []string
	for r := range byReason {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		types := byReason[r]
		sort.Strings(types)
		res.Notes = append(res.Notes, fmt.Sprintf("not priced, %s: %s", r, strings.Join(types, ", ")))
	}
	return set.sorted()
}

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// FetchGCP lists every Compute Engine SKU (pages of 5,000) and composes the machine prices.
func FetchGCP(ctx context.Context, o Options, instances []catalog.Instance) (*Result, error) {
	if o.APIKey == "" {
		return nil, fmt.Errorf("gcp: the Cloud Billing Catalog API needs an API key: set GOOGLE_API_KEY (a key restricted to the Cloud Billing API is enough)")
	}
	base := o.BaseURL
	if base == "" {
		base = GCPURL
	} else {
		base = strings.TrimRight(base, "/") + "/v1/services/" + GCPComputeService + "/skus"
	}
	res := &Result{}
	var parts gcpParts
	keep := regionFilter(o.Regions)
	token := ""
	seen := map[string]bool{}
	for page := 1; ; page++ {
		q := url.Values{}
		q.Set("key", o.APIKey)
		q.Set("pageSize", "5000")
		q.Set("currencyCode", "USD")
		if token != "" {
			q.Set("pageToken", token)
		}
		resp, err := get(ctx, o, base+"?"+q.Encode(), o.APIKey)
		if err != nil {
			return nil, fmt.Errorf("gcp: %w", err)
		}
		p, err := ParseGCPPage(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("gcp page %d: %w", page, err)
		}
		AddGCPSkus(res, &parts, p.Skus, keep)
		if o.Progress != nil {
			o.Progress(Progress{What: fmt.Sprintf("page %d", page), Done: int64(page)})
		}
		if p.NextPageToken == "" {
			break
		}
		if seen[p.NextPageToken] {
			return nil, fmt.Errorf("gcp: nextPageToken %q repeats: the listing would never end", p.NextPageToken)
		}
		seen[p.NextPageToken] = true
		token = p.NextPageToken
	}
	res.Rows = ComposeGCP(res, &parts, instances, o.Date)
	return res, nil
}

// ParseGCPFiles reads saved services.skus.list responses.
func ParseGCPFiles(files []io.Reader, o Options, instances []catalog.Instance) (*Result, error) {
	res := &Result{}
	var parts gcpParts
	keep := regionFilter(o.Regions)
	for i, f := range files {
		p, err := ParseGCPPage(f)
		if err != nil {
			return nil, fmt.Errorf("file %d: %w", i+1, err)
		}
		AddGCPSkus(res, &parts, p.Skus, keep)
	}
	res.Rows = ComposeGCP(res, &parts, instances, o.Date)
	return res, nil
}
