package pricefeed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// AWSOfferURL is the public Price List bulk offer file of EC2 for one region (no account, no
// signature; hundreds of megabytes).
// https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/using-ppslong.html
const AWSOfferURL = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/%s/index.json"

// AWSSource names the AWS figures in the catalog.
const AWSSource = "AWS Price List (AmazonEC2 offer; Linux, shared tenancy, no pre-installed software)"

// awsProduct is a product of an offer file or of a Query API PriceList entry, with the
// attributes the filter reads (decoding only them keeps the stream fast).
type awsProduct struct {
	SKU           string        `json:"sku"`
	ProductFamily string        `json:"productFamily"`
	Attributes    awsAttributes `json:"attributes"`
}

type awsAttributes struct {
	InstanceType    string `json:"instanceType"`
	RegionCode      string `json:"regionCode"`
	OperatingSystem string `json:"operatingSystem"`
	Tenancy         string `json:"tenancy"`
	PreInstalledSw  string `json:"preInstalledSw"`
	CapacityStatus  string `json:"capacitystatus"`
	LicenseModel    string `json:"licenseModel"`
}

// awsTerm is one offer term of a SKU.
type awsTerm struct {
	OfferTermCode   string `json:"offerTermCode"`
	SKU             string `json:"sku"`
	EffectiveDate   string `json:"effectiveDate"`
	PriceDimensions map[string]struct {
		Unit         string            `json:"unit"`
		PricePerUnit map[string]string `json:"pricePerUnit"`
		Description  string            `json:"description"`
	} `json:"priceDimensions"`
	TermAttributes map[string]string `json:"termAttributes"`
}

// awsKeep decides whether a product is a GPU instance priced the way the catalog means: Linux,
// shared tenancy, no pre-installed software (SQL Server...), capacitystatus Used (not the
// reservation placeholders), in a wanted region.
func awsKeep(p awsProduct, keep func(string) bool) (string, string) {
	a := p.Attributes
	switch {
	case p.ProductFamily != "Compute Instance" && p.ProductFamily != "Compute Instance (bare metal)":
		return "", "not an instance"
	case a.OperatingSystem != "Linux":
		return "", "not Linux"
	case a.Tenancy != "Shared":
		return "", "not shared tenancy"
	case a.PreInstalledSw != "NA":
		return "", "pre-installed software"
	case a.CapacityStatus != "" && a.CapacityStatus != "Used":
		return "", "capacitystatus " + a.CapacityStatus
	case a.LicenseModel != "" && a.LicenseModel != "No License required":
		return "", "licensed"
	case !parser.IsGPUInstanceType(parser.AWS, a.InstanceType):
		return "", "not a GPU type"
	case strings.TrimSpace(a.RegionCode) == "":
		return "", "no regionCode"
	case !keep(a.RegionCode):
		return "", "other region"
	}
	return a.InstanceType, ""
}

// awsParser collects products and terms; products come first in an offer file, so the terms of
// products that were left out are skipped without decoding.
type awsParser struct {
	res      *Result
	set      *rowSet
	keep     func(string) bool
	date     string
	products map[string]awsProduct // kept SKUs
	// sawProducts is set once a products object was read: terms before it cannot be matched.
	sawProducts bool
}

func newAWSParser(res *Result, set *rowSet, o Options) *awsParser {
	return &awsParser{res: res, set: set, keep: regionFilter(o.Regions), date: o.Date, products: map[string]awsProduct{}}
}

func (a *awsParser) product(p awsProduct) {
	if _, why := awsKeep(p, a.keep); why != "" {
		a.res.skip(why)
		return
	}
	a.products[p.SKU] = p
}

// term turns one term of a kept SKU into a row: OnDemand terms at their hourly rate, Reserved
// terms of the standard class with no upfront payment at theirs (with an upfront fee, it is
// spread over the term's hours and added). Convertible reservations are left out: the catalog's
// reserved price is the standard one.
func (a *awsParser) term(kind string, t awsTerm) {
	p, ok := a.products[t.SKU]
	if !ok {
		return
	}
	var opt parser.PurchaseOption
	basis := ""
	years := 0
	switch kind {
	case "OnDemand":
		opt = parser.OnDemand
	case "Reserved":
		ta := t.TermAttributes
		if ta["OfferingClass"] != "standard" {
			a.res.skip("convertible reservation")
			return
		}
		switch ta["LeaseContractLength"] {
		case "1yr", "1 yr":
			opt, years = parser.Reserved1y, 1
		case "3yr", "3 yr":
			opt, years = parser.Reserved3y, 3
		default:
			a.res.skip("unknown lease length")
			return
		}
		if ta["PurchaseOption"] != "No Upfront" {
			// Keep the option most teams buy and that compares with on-demand hour for hour.
			a.res.skip("reservation with an upfront payment")
			return
		}
		basis = fmt.Sprintf("%d-year standard reservation, no upfront", years)
	default:
		return
	}
	var hourly money.Micros
	found := false
	for _, d := range t.PriceDimensions {
		usd, ok := d.PricePerUnit["USD"]
		if !ok {
			continue
		}
		v, err := decimalPrice(usd)
		if err != nil {
			a.res.skip("unreadable price")
			return
		}
		switch d.Unit {
		case "Hrs":
			hourly += v
			found = true
		case "Quantity": // an upfront fee
			if years > 0 {
				hours := money.Micros(years * HoursPerYear)
				hourly += (v + hours/2) / hours
			}
		}
	}
	if !found || hourly <= 0 {
		a.res.skip("no hourly price")
		return
	}
	attrs := p.Attributes
	a.set.add(catalog.Price{Provider: parser.AWS, Type: attrs.InstanceType, Region: parser.NormalizeRegion(attrs.RegionCode), Option: opt,
		Hourly: hourly, Date: a.date, Source: AWSSource, Basis: joinBasis(basis, "sku "+t.SKU)}, t.EffectiveDate)
}

// ParseAWS reads an AWS Price List document from r as a stream, in either shape:
//   - a bulk offer file ({"products": {sku: product}, "terms": {"OnDemand": {sku: {code: term}},
//     "Reserved": ...}}), hundreds of megabytes, never held in memory whole;
//   - a Query API GetProducts response (`aws pricing get-products`), whose PriceList is an array
//     of JSON documents encoded as strings, each with its product and terms.
//
// Several documents may follow each other in one file (saved pages).
func ParseAWS(r io.Reader, o Options) (*Result, error) {
	return ParseAWSFiles([]io.Reader{r}, o)
}

// ParseAWSFiles reads several Price List files (offer files, saved Query API pages) into one set
// of rows: the same price twice is one row.
func ParseAWSFiles(files []io.Reader, o Options) (*Result, error) {
	res := &Result{}
	var set rowSet
	ap := newAWSParser(res, &set, o)
	for i, r := range files {
		if err := ap.stream(r); err != nil {
			if len(files) > 1 {
				return nil, fmt.Errorf("file %d: %w", i+1, err)
			}
			return nil, err
		}
	}
	res.Rows = set.sorted()
	return res, nil
}

// stream reads every top-level document of r.
func (a *awsParser) stream(r io.Reader) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	docs := 0
	for {
		t, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("aws: %w", err)
		}
		if d, ok := t.(json.Delim); !ok || d != '{' {
			return fmt.Errorf("aws: not a Price List document (it starts with %v)", t)
		}
		docs++
		if err := a.document(dec); err != nil {
			return fmt.Errorf("aws: %w (at byte %d)", err, dec.InputOffset())
		}
	}
	if docs == 0 {
		return fmt.Errorf("aws: empty input")
	}
	return nil
}

// document reads the keys of one top-level object (its '{' already read).
func (a *awsParser) document(dec *json.Decoder) error {
	for dec.More() {
		key, err := stringToken(dec)
		if err != nil {
			return err
		}
		switch key {
		case "products":
			a.sawProducts = true
			err = eachMember(dec, func(string) error {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return err
				}
				// Most products are not GPU instances: tell from the raw bytes before decoding.
				if it, ok := rawInstanceType(raw); ok && !parser.IsGPUInstanceType(parser.AWS, it) {
					a.res.skip("not a GPU type")
					return nil
				}
				var p awsProduct
				if err := json.Unmarshal(raw, &p); err != nil {
					return err
				}
				a.product(p)
				return nil
			})
		case "terms":
			if !a.sawProducts {
				return fmt.Errorf("terms come before products: not an offer file gpuguard can stream")
			}
			err = eachMember(dec, func(kind string) error {
				return eachMember(dec, func(sku string) error {
					if _, ok := a.products[sku]; !ok || (kind != "OnDemand" && kind != "Reserved") {
						return skipValue(dec)
					}
					return eachMember(dec, func(string) error {
						var t awsTerm
						if err := dec.Decode(&t); err != nil {
							return err
						}
						a.term(kind, t)
						return nil
					})
				})
			})
		case "PriceList":
			err = a.priceList(dec)
		default:
			err = skipValue(dec)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	_, err := dec.Token() // '}'
	return err
}

// priceList reads the Query API's array of JSON-encoded strings: each string is a document of
// its own and is decoded a second time.
func (a *awsParser) priceList(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if d, ok := t.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("PriceList is not an array")
	}
	for i := 0; dec.More(); i++ {
		var s string
		if err := dec.Decode(&s); err != nil {
			return fmt.Errorf("entry %d is not a JSON string: %w", i, err)
		}
		var entry struct {
			Product awsProduct `json:"product"`
			Terms   map[string]map[string]awsTerm
		}
		if err := json.Unmarshal([]byte(s), &entry); err != nil {
			return fmt.Errorf("entry %d: the string does not hold a JSON document: %w", i, err)
		}
		a.product(entry.Product)
		for kind, terms := range entry.Terms {
			for _, t := range terms {
				if t.SKU == "" {
					t.SKU = entry.Product.SKU
				}
				a.term(kind, t)
			}
		}
	}
	_, err = dec.Token() // ']'
	return err
}

func stringToken(dec *json.Decoder) (string, error) {
	t, err := dec.Token()
	if err != nil {
		return "", err
	}
	s, ok := t.(string)
	if !ok {
		return "", fmt.Errorf("expected an object key, got %v", t)
	}
	return s, nil
}

// eachMember calls fn for each member of the object that comes next, fn reading the value.
func eachMember(dec *json.Decoder, fn func(key string) error) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("expected an object, got %v", t)
	}
	for dec.More() {
		k, err := stringToken(dec)
		if err != nil {
			return err
		}
		if err := fn(k); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	_, err = dec.Token()
	return err
}

// rawInstanceType finds "instanceType":"X" in a product's bytes without decoding it; ok is false
// when the bytes do not say plainly (escapes, no such key), and then the product is decoded.
func rawInstanceType(raw []byte) (string, bool) {
	key := []byte(`"instanceType"`)
	i := bytes.Index(raw, key)
	if i < 0 || bytes.Contains(raw[i+len(key):], key) {
		return "", false
	}
	rest := bytes.TrimLeft(raw[i+len(key):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return "", false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) == 0 || rest[0] != '"' {
		return "", false
	}
	end := bytes.IndexByte(rest[1:], '"')
	if end < 0 {
		return "", false
	}
	v := rest[1 : 1+end]
	if bytes.IndexByte(v, '\\') >= 0 {
		return "", false
	}
	return string(v), true
}

// skipValue consumes the next value whole. Decoding into a RawMessage runs the decoder's fast
// scanner over it, several times quicker than walking it token by token; the value is dropped.
func skipValue(dec *json.Decoder) error {
	var raw json.RawMessage
	return dec.Decode(&raw)
}

// FetchAWS downloads and streams each region's offer file.
func FetchAWS(ctx context.Context, o Options) (*Result, error) {
	if len(o.Regions) == 0 {
		return nil, fmt.Errorf("aws: name the regions to fetch with --region (us-east-1, eu-west-1, ...): each region's offer file is hundreds of megabytes")
	}
	res := &Result{}
	var set rowSet
	ap := newAWSParser(res, &set, o)
	for _, region := range o.Regions {
		region = parser.NormalizeRegion(region)
		u := fmt.Sprintf(AWSOfferURL, region)
		if o.BaseURL != "" {
			u = strings.TrimRight(o.BaseURL, "/") + "/offers/v1.0/aws/AmazonEC2/current/" + region + "/index.json"
		}
		resp, err := get(ctx, o, u, "")
		if err != nil {
			return nil, fmt.Errorf("aws %s: %w", region, err)
		}
		pr := &progressReader{r: resp.Body, total: resp.ContentLength, what: region + " offer file", fn: o.Progress,
			rows: func() int { return len(set.rows) }}
		err = ap.stream(pr)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("aws %s: %w", region, err)
		}
	}
	res.Rows = set.sorted()
	return res, nil
}
