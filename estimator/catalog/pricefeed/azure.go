package pricefeed

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// AzureURL is the Azure Retail Prices API: public, no authentication. The 2023-01-01-preview
// version is backward compatible and its filter values are case-sensitive.
// https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices
const AzureURL = "https://prices.azure.com/api/retail/prices"

// AzureSource names the Azure figures in the catalog.
const AzureSource = "Azure Retail Prices API (prices.azure.com, Linux pay-as-you-go, spot and reservations)"

// AzurePage is one page of the Retail Prices API.
type AzurePage struct {
	Items        []AzureItem `json:"Items"`
	NextPageLink *string     `json:"NextPageLink"`
	Count        int         `json:"Count"`
}

// AzureItem is one price of the Retail Prices API.
type AzureItem struct {
	CurrencyCode       string  `json:"currencyCode"`
	RetailPrice        float64 `json:"retailPrice"`
	UnitPrice          float64 `json:"unitPrice"`
	ArmRegionName      string  `json:"armRegionName"`
	EffectiveStartDate string  `json:"effectiveStartDate"`
	MeterID            string  `json:"meterId"`
	MeterName          string  `json:"meterName"`
	ProductName        string  `json:"productName"`
	SkuName            string  `json:"skuName"`
	ServiceName        string  `json:"serviceName"`
	UnitOfMeasure      string  `json:"unitOfMeasure"`
	Type               string  `json:"type"`
	ArmSkuName         string  `json:"armSkuName"`
	ReservationTerm    string  `json:"reservationTerm"`
}

// ParseAzurePage decodes one page of the API (or a saved response).
func ParseAzurePage(r io.Reader) (AzurePage, error) {
	var p AzurePage
	dec := json.NewDecoder(r)
	if err := dec.Decode(&p); err != nil {
		return AzurePage{}, fmt.Errorf("not an Azure Retail Prices response: %w", err)
	}
	if p.Items == nil {
		return AzurePage{}, fmt.Errorf("not an Azure Retail Prices response: no Items")
	}
	return p, nil
}

// azureFilter is the OData filter for one region's virtual machines. GPU sizes are picked out
// of the answer: the API has no filter on a name's prefix that all its versions accept.
func azureFilter(region string) string {
	return fmt.Sprintf("serviceName eq 'Virtual Machines' and armRegionName eq '%s'", strings.ReplaceAll(region, "'", ""))
}

// AzureFirstPage is the URL of a region's first page.
func AzureFirstPage(base, region string) string {
	if base == "" {
		base = AzureURL
	}
	q := url.Values{}
	q.Set("api-version", "2023-01-01-preview")
	q.Set("meterRegion", "'primary'")
	q.Set("$filter", azureFilter(region))
	return base + "?" + q.Encode()
}

// AddAzureItems turns a page's items into rows:
//   - Linux only: a Windows price shares the meter name and differs only by the " Windows" suffix
//     of productName;
//   - meterName "... Spot" is spot; "... Low Priority" is the older Batch/scale-set priority, which
//     is not spot and not priced;
//   - a Reservation's retailPrice is the whole term's price although unitOfMeasure says
//     "1 Hour": it is divided over the term's hours (8,760 a year);
//   - DevTest prices, other currencies and non-hourly units are left out.
func AddAzureItems(res *Result, set *rowSet, items []AzureItem, date string, keep func(string) bool) {
	for _, it := range items {
		option, hourly, basis, why := azureRow(it)
		switch {
		case why != "":
			res.skip(why)
			continue
		case !parser.IsGPUInstanceType(parser.Azure, it.ArmSkuName):
			res.skip("not a GPU size")
			continue
		case !keep(it.ArmRegionName):
			res.skip("other region")
			continue
		}
		p := catalog.Price{Provider: parser.Azure, Type: it.ArmSkuName, Region: parser.NormalizeRegion(it.ArmRegionName), Option: option,
			Hourly: hourly, Date: date, Source: AzureSource, Basis: joinBasis(basis, meterNote(it))}
		set.add(p, it.EffectiveStartDate)
	}
}

func meterNote(it AzureItem) string {
	if it.MeterID == "" {
		return ""
	}
	return "meter " + it.MeterID
}

func azureRow(it AzureItem) (parser.PurchaseOption, money.Micros, string, string) {
	switch {
	case it.CurrencyCode != "" && it.CurrencyCode != "USD":
		return "", 0, "", "not USD"
	case it.ServiceName != "" && it.ServiceName != "Virtual Machines":
		return "", 0, "", "not a virtual machine"
	case it.ArmSkuName == "":
		return "", 0, "", "no armSkuName"
	case strings.TrimSpace(it.ArmRegionName) == "":
		return "", 0, "", "no region"
	case strings.HasSuffix(strings.TrimSpace(it.ProductName), " Windows"):
		return "", 0, "", "Windows"
	case it.RetailPrice <= 0:
		return "", 0, "", "no price"
	}
	price := money.FromDollars(it.RetailPrice)
	meter := strings.TrimSpace(it.MeterName)
	switch it.Type {
	case "Consumption":
		if it.UnitOfMeasure != "1 Hour" {
			return "", 0, "", "not hourly"
		}
		switch {
		case strings.HasSuffix(meter, " Low Priority"):
			return "", 0, "", "Low Priority"
		case strings.HasSuffix(meter, " Spot"):
			return parser.Spot, price, "", ""
		}
		return parser.OnDemand, price, "", ""
	case "Reservation":
		years := 0
		switch strings.TrimSpace(it.ReservationTerm) {
		case "1 Year":
			years = 1
		case "3 Years":
			years = 3
		default:
			return "", 0, "", "unknown reservation term"
		}
		hours := money.Micros(years * HoursPerYear)
		hourly := (price + hours/2) / hours
		opt := parser.Reserved1y
		if years == 3 {
			opt = parser.Reserved3y
		}
		basis := fmt.Sprintf("%d-year reservation: %s for the term ÷ %s hours", years, price, money.Group(int64(years*HoursPerYear)))
		return opt, hourly, basis, ""
	case "DevTestConsumption":
		return "", 0, "", "DevTest"
	}
	return "", 0, "", "price type " + it.Type
}

// FetchAzure reads every page of the Retail Prices API for each region, following
// NextPageLink.
func FetchAzure(ctx context.Context, o Options) (*Result, error) {
	if len(o.Regions) == 0 {
		return nil, fmt.Errorf("azure: name the regions to fetch with --region (eastus, westeurope, ...)")
	}
	res := &Result{}
	var set rowSet
	keep := regionFilter(o.Regions)
	for _, region := range o.Regions {
		next := AzureFirstPage(o.BaseURL, parser.NormalizeRegion(region))
		seen := map[string]bool{}
		for page := 1; next != ""; page++ {
			if seen[next] {
				return nil, fmt.Errorf("azure: NextPageLink repeats %s", next)
			}
			seen[next] = true
			resp, err := get(ctx, o, next, "")
			if err != nil {
				return nil, fmt.Errorf("azure %s: %w", region, err)
			}
			p, err := ParseAzurePage(resp.Body)
			resp.Body.Close()
			if err != nil {
				return nil, fmt.Errorf("azure %s page %d: %w", region, page, err)
			}
			AddAzureItems(res, &set, p.Items, o.Date, keep)
			if o.Progress != nil {
				o.Progress(Progress{What: fmt.Sprintf("%s page %d", region, page), Done: int64(page), Rows: len(set.rows)})
			}
			next = ""
			if p.NextPageLink != nil {
				next = *p.NextPageLink
			}
		}
	}
	res.Rows = set.sorted()
	return res, nil
}

// ParseAzureFiles reads saved Retail Prices responses (one page per file).
func ParseAzureFiles(files []io.Reader, o Options) (*Result, error) {
	res := &Result{}
	var set rowSet
	keep := regionFilter(o.Regions)
	for i, f := range files {
		p, err := ParseAzurePage(f)
		if err != nil {
			return nil, fmt.Errorf("file %d: %w", i+1, err)
		}
		AddAzureItems(res, &set, p.Items, o.Date, keep)
	}
	res.Rows = set.sorted()
	return res, nil
}
