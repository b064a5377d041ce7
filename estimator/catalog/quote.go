package catalog

import (
	"fmt"
	"strings"

	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// NoRegion is why a resource without a region has no price, and how to give it one.
const NoRegion = "no region: set it on the resource or its provider, in .gpuguard.yaml (region) or with --region"

// Default discounts off on-demand for purchase options the tables hold no price for. They are
// the conservative (smallest) end of the documented ranges in shared/reference/pricing/README.md:
// spot 60-90% off; AWS and Azure 1-year commitments about 30-40% off, 3-year about 50-60% off.
// A price derived with them is always marked an estimate.
var defaultMultiplier = map[parser.PurchaseOption]float64{
	parser.Spot:       0.40,
	parser.Reserved1y: 0.70,
	parser.Reserved3y: 0.50,
}

// DefaultMultiplier returns the share of on-demand a derived price uses for an option.
func DefaultMultiplier(opt parser.PurchaseOption) float64 {
	if m, ok := defaultMultiplier[opt]; ok {
		return m
	}
	return 1
}

// Quote is the hourly price of one instance of a type.
type Quote struct {
	Hourly    money.Micros
	Estimated bool
	// Price is the catalog row the quote stands on (the on-demand row when derived).
	Price Price
	// Derived explains a price computed from another one; empty for a catalog row.
	Derived string
}

// Miss explains why no price could be given, and the nearest region that has one.
type Miss struct {
	Reason  string
	Nearest *Quote
	// NearestRegion is the region of Nearest.
	NearestRegion string
}

// Quote finds the price of a type in a region for a purchase option: the catalog row when there
// is one, else (for spot and commitments) on-demand times the default discount, marked an
// estimate. Without an on-demand price in the region it returns a Miss naming the nearest
// region that has one.
func (c *Catalog) Quote(provider, typ, region string, opt parser.PurchaseOption) (Quote, *Miss) {
	region = parser.NormalizeRegion(region)
	if p, ok := c.Price(provider, typ, region, opt); ok {
		return Quote{Hourly: p.Hourly, Estimated: p.Estimated, Price: p}, nil
	}
	od, ok := c.Price(provider, typ, region, parser.OnDemand)
	if ok && opt != parser.OnDemand {
		m := DefaultMultiplier(opt)
		return Quote{
			Hourly:    od.Hourly.Mul(m),
			Estimated: true,
			Price:     od,
			Derived:   fmt.Sprintf("no %s price in the catalog: on-demand × %.2f (gpuguard's default discount)", strings.ReplaceAll(string(opt), "_", " "), m),
		}, nil
	}
	if ok {
		return Quote{Hourly: od.Hourly, Estimated: od.Estimated, Price: od}, nil
	}
	regions := c.Regions(provider, typ)
	if len(regions) == 0 {
		if _, known := c.Instance(provider, typ); known {
			return Quote{}, &Miss{Reason: fmt.Sprintf("%s has no on-demand price in the catalog", typ)}
		}
		return Quote{}, &Miss{Reason: fmt.Sprintf("%s is not in the %s price catalog", typ, providerName(provider))}
	}
	if region == "" {
		return Quote{}, &Miss{Reason: NoRegion}
	}
	near := NearestRegion(region, regions)
	miss := &Miss{Reason: fmt.Sprintf("%s has no price for region %s in the catalog", typ, region), NearestRegion: near}
	if q, m := c.Quote(provider, typ, near, opt); m == nil {
		if c.nearestFallback {
			q.Estimated = true
			q.Derived = strings.TrimPrefix(q.Derived+"; ", "; ") + fmt.Sprintf("no %s price in the catalog: %s's rate (region_fallback: nearest)", region, near)
			return q, nil
		}
		miss.Nearest = &q
	}
	return Quote{}, miss
}

func providerName(p string) string {
	switch p {
	case parser.AWS:
		return "AWS"
	case parser.GCP:
		return "GCP"
	case parser.Azure:
		return "Azure"
	}
	return p
}

// geography groups region names of the three clouds by continent, for "nearest region".
func geography(region string) string {
	r := strings.ToLower(region)
	switch {
	case strings.HasPrefix(r, "us") || strings.HasPrefix(r, "northamerica") || strings.HasPrefix(r, "ca-") ||
		strings.HasSuffix(r, "us") || strings.HasSuffix(r, "us2") || strings.HasSuffix(r, "us3") || strings.Contains(r, "canada"):
		return "north-america"
	case strings.HasPrefix(r, "eu") || strings.HasPrefix(r, "europe") || strings.HasSuffix(r, "europe") ||
		strings.Contains(r, "uk") || strings.Contains(r, "france") || strings.Contains(r, "germany") ||
		strings.Contains(r, "switzerland") || strings.Contains(r, "norway") || strings.Contains(r, "sweden") || strings.Contains(r, "italy") || strings.Contains(r, "poland"):
		return "europe"
	case strings.HasPrefix(r, "ap") || strings.HasPrefix(r, "asia") || strings.HasPrefix(r, "australia") ||
		strings.Contains(r, "japan") || strings.Contains(r, "korea") || strings.Contains(r, "india") || strings.HasSuffix(r, "asia"):
		return "asia-pacific"
	case strings.HasPrefix(r, "sa-") || strings.HasPrefix(r, "southamerica") || strings.Contains(r, "brazil"):
		return "south-america"
	case strings.HasPrefix(r, "me") || strings.HasPrefix(r, "il-") || strings.Contains(r, "uae") || strings.Contains(r, "qatar"):
		return "middle-east"
	case strings.HasPrefix(r, "af") || strings.Contains(r, "southafrica"):
		return "africa"
	}
	return "other"
}

// neighbour is the continent whose regions are nearest to one that has none priced: South
// America's to North America, the Middle East's and Africa's to Europe.
var neighbour = map[string]string{"south-america": "north-america", "middle-east": "europe", "africa": "europe", "other": "north-america"}

// homeRegions are the clouds' reference regions (the best-covered ones): among equally near
// candidates they win over name order.
var homeRegions = map[string]bool{"us-east-1": true, "us-central1": true, "eastus": true}

// NearestRegion picks, among candidates, the region most like the wanted one: same continent
// first (and there the longest shared name prefix: us-east-2 is nearer us-east-1 than us-west-2),
// then the neighbouring continent, then a cloud's reference region, then name order. Names are
// compared only within a continent: westeurope shares "west" with westus, not a coast.
func NearestRegion(want string, candidates []string) string {
	best, bestScore := "", -1
	g := geography(want)
	for _, c := range candidates {
		score := 0
		switch geography(c) {
		case g:
			score = 100 + commonPrefix(want, c)
		case neighbour[g]:
			score = 50
		}
		if score > bestScore || score == bestScore && (homeRegions[c] && !homeRegions[best] || homeRegions[c] == homeRegions[best] && c < best) {
			best, bestScore = c, score
		}
	}
	return best
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
