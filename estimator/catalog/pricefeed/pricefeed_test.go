package pricefeed

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/parser"
)

const date = "2026-11-21"

func open(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// rowsByKey indexes rows as "type region option" → "usd basis".
func rowsByKey(rows []catalog.Price) map[string]catalog.Price {
	m := map[string]catalog.Price{}
	for _, r := range rows {
		m[fmt.Sprintf("%s %s %s", r.Type, r.Region, r.Option)] = r
	}
	return m
}

func wantRows(t *testing.T, rows []catalog.Price, want map[string]string) {
	t.Helper()
	got := rowsByKey(rows)
	for k, usd := range want {
		r, ok := got[k]
		if !ok {
			t.Errorf("no row %s", k)
			continue
		}
		if r.Hourly.Decimal(6) != usd {
			t.Errorf("%s: $%s/h, want $%s", k, r.Hourly.Decimal(6), usd)
		}
		if r.Date != date || r.Source == "" || r.Estimated {
			t.Errorf("%s: date %q, source %q, estimated %v", k, r.Date, r.Source, r.Estimated)
		}
	}
	if len(got) != len(want) {
		var keys []string
		for k := range got {
			keys = append(keys, k)
		}
		t.Errorf("%d rows %v, want %d", len(got), keys, len(want))
	}
}

func TestAzureLinuxSpotAndWindows(t *testing.T) {
	res, err := ParseAzureFiles([]io.Reader{open(t, "azure_retail_prices_nd96isr_h100_v5_eastus.json")}, Options{Date: date})
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, res.Rows, map[string]string{
		"Standard_ND96isr_H100_v5 eastus on_demand": "98.320000", // not the Windows row's 102.736
		"Standard_ND96isr_H100_v5 eastus spot":      "18.169536",
	})
	if res.Skipped["Windows"] != 2 {
		t.Errorf("skipped %v: want the two Windows rows (one of them Low Priority)", res.Skipped)
	}
	// The documentation's samples: a Windows DevTest spot row and a reservation of a CPU size.
	res, err = ParseAzureFiles([]io.Reader{open(t, "azure_retail_prices_doc_samples_2020.json")}, Options{Date: date})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 0 || res.Skipped["Windows"] != 1 || res.Skipped["not a GPU size"] != 1 {
		t.Errorf("rows %v, skipped %v", res.Rows, res.Skipped)
	}
}

func TestAzureReservationsPagesAndDuplicates(t *testing.T) {
	res, err := ParseAzureFiles([]io.Reader{open(t, "azure_gpu_page1.json"), open(t, "azure_gpu_page2.json")}, Options{Date: date, Regions: []string{"eastus"}})
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, res.Rows, map[string]string{
		"Standard_NC24ads_A100_v4 eastus on_demand":   "3.673000", // the newer of two meters
		"Standard_NC24ads_A100_v4 eastus spot":        "1.102000",
		"Standard_NC24ads_A100_v4 eastus reserved_1y": "2.283105", // 20,000 ÷ 8,760 h
		"Standard_NC24ads_A100_v4 eastus reserved_3y": "1.522070", // 40,000 ÷ 26,280 h
	})
	r := rowsByKey(res.Rows)["Standard_NC24ads_A100_v4 eastus reserved_3y"]
	if r.Basis != "3-year reservation: $40,000.00 for the term ÷ 26,280 hours; meter m-nc24-r3" || r.Source != AzureSource {
		t.Errorf("basis %q, source %q", r.Basis, r.Source)
	}
	for _, why := range []string{"Low Priority", "Windows", "DevTest", "not a GPU size"} {
		if res.Skipped[why] != 1 {
			t.Errorf("skipped %v: want one %q", res.Skipped, why)
		}
	}
}

// The API followed page by page against a server that speaks its JSON.
func TestFetchAzureFollowsNextPageLink(t *testing.T) {
	var mu sync.Mutex
	var queries []string
	fails := 1
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		queries = append(queries, r.URL.RawQuery)
		if fails > 0 {
			fails--
			http.Error(w, `{"Error":"busy"}`, http.StatusServiceUnavailable)
			return
		}
		name := "azure_gpu_page1.json"
		if r.URL.Query().Get("page") == "2" {
			name = "azure_gpu_page2.json"
		}
		b, _ := os.ReadFile(filepath.Join("testdata", name))
		b = bytes.Replace(b, []byte(`"PAGE2"`), []byte(`"`+srv.URL+`/prices?page=2"`), 1)
		w.Write(b)
	}))
	defer srv.Close()
	var pages []string
	var slept []time.Duration
	res, err := FetchAzure(context.Background(), Options{Regions: []string{"eastus"}, Date: date, BaseURL: srv.URL + "/prices",
		Sleep: func(d time.Duration) { slept = append(slept, d) }, Progress: func(p Progress) { pages = append(pages, p.What) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 4 || len(pages) != 2 || pages[1] != "eastus page 2" || len(slept) != 1 {
		t.Fatalf("rows %d, pages %v, retries %v", len(res.Rows), pages, slept)
	}
	first := queries[1]
	for _, s := range []string{"api-version=2023-01-01-preview", "meterRegion=%27primary%27", "armRegionName+eq+%27eastus%27", "serviceName+eq+%27Virtual+Machines%27"} {
		if !strings.Contains(first, s) {
			t.Errorf("first query %q lacks %q", first, s)
		}
	}
	if _, err := FetchAzure(context.Background(), Options{Date: date, BaseURL: srv.URL}); err == nil || !strings.Contains(err.Error(), "--region") {
		t.Errorf("no region: %v", err)
	}
}

func TestFetchAzureStopsOnALoopingNextPageLink(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"Items": [], "NextPageLink": %q}`, srv.URL+"/p?same=1")
	}))
	defer srv.Close()
	_, err := FetchAzure(context.Background(), Options{Regions: []string{"eastus"}, BaseURL: srv.URL + "/p"})
	if err == nil || !strings.Contains(err.Error(), "NextPageLink repeats") {
		t.Fatalf("err = %v", err)
	}
}

func TestAWSQueryAPIStringsAreDecodedTwice(t *testing.T) {
	res, err := ParseAWS(open(t, "aws_pricing_getproducts_p5_constructed.json"), Options{Date: date})
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, res.Rows, map[string]string{"p5.48xlarge us-east-1 on_demand": "55.040000"})
	// The sample's reserved term is a placeholder priced 0.0: never a $0 row.
	if res.Skipped["no hourly price"] != 1 {
		t.Errorf("skipped %v", res.Skipped)
	}
	r := res.Rows[0]
	if r.Basis != "sku 3D4V8UAYEMB38GU2" || r.Source != AWSSource {
		t.Errorf("source %q, basis %q", r.Source, r.Basis)
	}
	if _, err := ParseAWS(strings.NewReader(`{"PriceList": ["{not json"]}`), Options{}); err == nil || !strings.Contains(err.Error(), "entry 0") {
		t.Errorf("a broken entry: %v", err)
	}
	if _, err := ParseAWS(strings.NewReader(`{"PriceList": [42]}`), Options{}); err == nil || !strings.Contains(err.Error(), "not a JSON string") {
		t.Errorf("a number entry: %v", err)
	}
}

func TestAWSOfferFileFilters(t *testing.T) {
	res, err := ParseAWS(open(t, "aws_offer_constructed.json"), Options{Date: date, Regions: []string{"us-east-1"}})
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, res.Rows, map[string]string{
		"p5.48xlarge us-east-1 on_demand": "55.040000",
		"g6.xlarge us-east-1 on_demand":   "0.804800",
		"g6.xlarge us-east-1 reserved_1y": "0.507000",
		"g6.xlarge us-east-1 reserved_3y": "0.348000",
	})
	for why, n := range map[string]int{"not Linux": 1, "not shared tenancy": 1, "pre-installed software": 1, "capacitystatus AllocatedCapacityReservation": 1,
		"not a GPU type": 1, "other region": 1, "not an instance": 1, "convertible reservation": 1, "reservation with an upfront payment": 1} {
		if res.Skipped[why] != n {
			t.Errorf("skipped[%q] = %d, want %d (all: %v)", why, res.Skipped[why], n, res.Skipped)
		}
	}
	all, err := ParseAWS(open(t, "aws_offer_constructed.json"), Options{Date: date})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rowsByKey(all.Rows)["g6.xlarge eu-west-1 on_demand"]; !ok || len(all.Rows) != 5 {
		t.Errorf("without a region filter: %v", all.Rows)
	}
}

func TestAWSMalformed(t *testing.T) {
	for in, msg := range map[string]string{
		``:                                "empty input",
		`[1,2]`:                           "not a Price List document",
		`{"terms": {}, "products": {}}`:   "terms come before products",
		`{"products": {"A": {"sku": 3}}}`: "products: A",
		`{"products": {"A": `:             "EOF",
	} {
		if _, err := ParseAWS(strings.NewReader(in), Options{}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: err %v, want %q", in, err, msg)
		}
	}
}

// offerStream writes an offer file with n CPU products before the GPU ones, without holding it.
func offerStream(n int) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		w := pw
		fmt.Fprint(w, `{"formatVersion":"v1.0","products":{`)
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, `"CPU%d":{"sku":"CPU%d","productFamily":"Compute Instance","attributes":{"instanceType":"m5.large","regionCode":"us-east-1","operatingSystem":"Linux","tenancy":"Shared","preInstalledSw":"NA","capacitystatus":"Used"}},`, i, i)
		}
		fmt.Fprint(w, `"GPU":{"sku":"GPU","productFamily":"Compute Instance","attributes":{"instanceType":"g6.xlarge","regionCode":"us-east-1","operatingSystem":"Linux","tenancy":"Shared","preInstalledSw":"NA","capacitystatus":"Used"}}},"terms":{"OnDemand":{`)
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, `"CPU%d":{"CPU%d.X":{"sku":"CPU%d","priceDimensions":{"CPU%d.X.Y":{"unit":"Hrs","pricePerUnit":{"USD":"0.0960000000"}}}}},`, i, i, i, i)
		}
		fmt.Fprint(w, `"GPU":{"GPU.X":{"sku":"GPU","effectiveDate":"2026-09-01T00:00:00Z","priceDimensions":{"GPU.X.Y":{"unit":"Hrs","pricePerUnit":{"USD":"0.8048000000"}}}}}}}}`)
		pw.Close()
	}()
	return pr
}

func TestAWSOfferIsStreamed(t *testing.T) {
	res, err := ParseAWS(offerStream(20000), Options{Date: date})
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, res.Rows, map[string]string{"g6.xlarge us-east-1 on_demand": "0.804800"})
	if res.Skipped["not a GPU type"] != 20000 {
		t.Errorf("skipped %v", res.Skipped)
	}
}

// BenchmarkParseAWSOffer measures the streaming parse; memory stays flat whatever the size
// (docs/pricing.md has the numbers).
func BenchmarkParseAWSOffer(b *testing.B) {
	var n int64
	for i := 0; i < b.N; i++ {
		cr := &countingReader{r: offerStream(100000)}
		if _, err := ParseAWS(cr, Options{Date: date}); err != nil {
			b.Fatal(err)
		}
		n = cr.n
	}
	b.SetBytes(n)
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestFetchAWSDownloadsWithProgress(t *testing.T) {
	offer, err := os.ReadFile(filepath.Join("testdata", "aws_offer_constructed.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/offers/v1.0/aws/AmazonEC2/current/us-east-1/index.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(offer)))
		w.Write(offer)
	}))
	defer srv.Close()
	var last Progress
	res, err := FetchAWS(context.Background(), Options{Regions: []string{"us-east-1"}, Date: date, BaseURL: srv.URL, Progress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 4 || last.Total != int64(len(offer)) || last.Done != last.Total || last.What != "us-east-1 offer file" {
		t.Fatalf("rows %d, progress %+v", len(res.Rows), last)
	}
	_, err = FetchAWS(context.Background(), Options{Regions: []string{"xx-nowhere-1"}, Date: date, BaseURL: srv.URL, Sleep: func(time.Duration) {}})
	if err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("missing region: %v", err)
	}
}

func TestGCPSampleGPUSku(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	res, err := ParseGCPFiles([]io.Reader{open(t, "gcp_cloudbilling_v1_skus_sample.json")}, Options{Date: date}, cat.AllInstances(parser.GCP))
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, res.Rows, map[string]string{
		"nvidia-tesla-t4 us-central1 on_demand": "0.350000", // units "0" + nanos 350000000
		"nvidia-tesla-t4 us-east1 on_demand":    "0.350000",
		"nvidia-tesla-t4 us-west1 on_demand":    "0.350000",
	})
	if res.Skipped["not a machine or GPU SKU"] != 1 {
		t.Errorf("the VPN egress SKU: skipped %v", res.Skipped)
	}
}

// Machine types composed from their core, memory and GPU SKUs give the same prices as the
// independent data set the embedded catalog carries (Cyclenerd, 2026-07-30), to the micro-dollar.
func TestGCPComposedMachinesMatchIndependentData(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	res, err := ParseGCPFiles([]io.Reader{open(t, "gcp_skus_compose_constructed.json")}, Options{Date: date, Regions: []string{"us-central1", "europe-west1"}}, cat.AllInstances(parser.GCP))
	if err != nil {
		t.Fatal(err)
	}
	got := rowsByKey(res.Rows)
	checked := 0
	for _, in := range cat.AllInstances(parser.GCP) {
		series := strings.SplitN(in.Type, "-", 2)[0]
		if series != "a2" && series != "n1" || strings.Contains(in.Type, "ultragpu") {
			continue
		}
		for _, opt := range []parser.PurchaseOption{parser.OnDemand, parser.Reserved1y, parser.Reserved3y} {
			want, ok := cat.Price(parser.GCP, in.Type, "us-central1", opt)
			r, composed := got[fmt.Sprintf("%s us-central1 %s", in.Type, opt)]
			if !ok || !composed {
				continue
			}
			checked++
			// The data set rounds each machine's price to six decimals from SKU prices that
			// carry more: a micro-dollar or two either way is rounding, not arithmetic.
			if d := r.Hourly - want.Hourly; d > 2 || d < -2 {
				t.Errorf("%s %s: composed $%s, the independent data says $%s (%s)", in.Type, opt, r.Hourly.Decimal(6), want.Hourly.Decimal(6), r.Basis)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d prices cross-checked", checked)
	}
	a2 := got["a2-highgpu-1g us-central1 on_demand"]
	if a2.Basis != "12 vCPU × $0.031611 + 85 GiB × $0.004237 + 1 GPU × $2.933908 (SKUs: A2 Instance Core running in Americas; A2 Instance Ram running in Americas; Nvidia Tesla A100 GPU running in Americas)" {
		t.Errorf("basis %q", a2.Basis)
	}
	if s := got["a2-highgpu-1g us-central1 spot"]; s.Hourly.Decimal(6) != "1.321831" {
		t.Errorf("spot: %s", s.Hourly.Decimal(6))
	}
	for k := range got {
		if strings.Contains(k, "europe-west1") {
			t.Errorf("%s: a core price alone must not make a machine price", k)
		}
	}
	notes := strings.Join(res.Notes, "\n")
	for _, n := range []string{"not priced, no l4 GPU SKU: g2-standard-12, g2-standard-16,", "not priced, no A3 core and RAM SKUs: a3-highgpu-1g,", "not priced, no a100-80gb GPU SKU: a2-ultragpu-1g,"} {
		if !strings.Contains(notes, n) {
			t.Errorf("notes lack %q:\n%s", n, notes)
		}
	}
}

func TestUnitPrice(t *testing.T) {
	for _, tc := range []struct {
		units string
		nanos int64
		want  int64
		ok    bool
	}{
		{"0", 350000000, 350000000, true},
		{"2", 933908000, 2933908000, true},
		{"", 1, 1, true},
		{"x", 0, 0, false},
		{"0", 1e9, 0, false},
	} {
		got, err := UnitPrice(tc.units, tc.nanos)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("UnitPrice(%q, %d) = %d, %v", tc.units, tc.nanos, got, err)
		}
	}
}

func TestFetchGCPPagesAndHidesTheKey(t *testing.T) {
	cat, _ := catalog.Default()
	page1, _ := os.ReadFile(filepath.Join("testdata", "gcp_skus_compose_constructed.json"))
	page2, _ := os.ReadFile(filepath.Join("testdata", "gcp_cloudbilling_v1_skus_sample.json"))
	var tokens []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("key") != "AIzaSecretKey" {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, `{"error": {"code": 403, "message": "API key %s not valid"}}`, q.Get("key"))
			return
		}
		tokens = append(tokens, q.Get("pageToken"))
		if q.Get("pageToken") == "" {
			w.Write(bytes.Replace(page1, []byte(`"nextPageToken": ""`), []byte(`"nextPageToken": "T2"`), 1))
			return
		}
		w.Write(page2)
	}))
	defer srv.Close()
	res, err := FetchGCP(context.Background(), Options{APIKey: "AIzaSecretKey", BaseURL: srv.URL, Date: date}, cat.AllInstances(parser.GCP))
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens) != 2 || tokens[1] != "T2" {
		t.Fatalf("page tokens %v", tokens)
	}
	got := rowsByKey(res.Rows)
	if got["a2-highgpu-1g us-central1 on_demand"].Hourly.Decimal(6) != "3.673385" || got["nvidia-tesla-t4 us-west1 on_demand"].Hourly.Decimal(6) != "0.350000" {
		t.Errorf("rows from both pages: %d", len(res.Rows))
	}
	_, err = FetchGCP(context.Background(), Options{APIKey: "AIzaWrongKey", BaseURL: srv.URL}, nil)
	if err == nil || strings.Contains(err.Error(), "AIzaWrongKey") || !strings.Contains(err.Error(), "REDACTED") {
		t.Errorf("a refused key must not be shown: %v", err)
	}
	if _, err := FetchGCP(context.Background(), Options{BaseURL: srv.URL}, nil); err == nil || !strings.Contains(err.Error(), "GOOGLE_API_KEY") {
		t.Errorf("no key: %v", err)
	}
}

// Rows written as an overlay and read back are the same rows, and the catalog then prices with
// them instead of the embedded figures.
func TestOverlayRoundTrip(t *testing.T) {
	res, err := ParseAzureFiles([]io.Reader{open(t, "azure_gpu_page1.json"), open(t, "azure_gpu_page2.json")}, Options{Date: date})
	if err != nil {
		t.Fatal(err)
	}
	aws, err := ParseAWS(open(t, "aws_offer_constructed.json"), Options{Date: date})
	if err != nil {
		t.Fatal(err)
	}
	rows := append(res.Rows, aws.Rows...)
	var o catalog.Overlay
	o.GeneratedAt = "2026-11-21T12:00:00Z"
	for _, r := range rows {
		o.Rows = append(o.Rows, catalog.Row(r))
	}
	var buf bytes.Buffer
	if err := catalog.WriteOverlay(&buf, o); err != nil {
		t.Fatal(err)
	}
	back, err := catalog.ParseOverlay(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(rows) {
		t.Fatalf("%d rows back, wrote %d", len(back), len(rows))
	}
	for i := range rows {
		if back[i] != rows[i] {
			t.Errorf("row %d:\n wrote %+v\n  read %+v", i, rows[i], back[i])
		}
	}
	cat, _ := catalog.Default()
	before, _ := cat.Price(parser.AWS, "g6.xlarge", "us-east-1", parser.Reserved1y)
	with, err := cat.WithOverlay(back)
	if err != nil {
		t.Fatal(err)
	}
	q, miss := with.Quote(parser.AWS, "g6.xlarge", "us-east-1", parser.Reserved1y)
	if miss != nil || q.Hourly.Decimal(6) != "0.507000" || q.Estimated || q.Price.Date != date {
		t.Errorf("quote with the overlay: %+v %v (embedded: %+v)", q, miss, before)
	}
	if q, _ := with.Quote(parser.AWS, "g6.xlarge", "eu-west-1", parser.OnDemand); q.Hourly.Decimal(4) != "0.9100" {
		t.Errorf("a region the embedded catalog lacks: %+v", q)
	}
}

func TestFetchGCPStopsOnALoopingPageToken(t *testing.T) {
	var n int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		fmt.Fprintf(w, `{"skus": [], "nextPageToken": "T%d"}`, n%2)
	}))
	defer srv.Close()
	_, err := FetchGCP(context.Background(), Options{APIKey: "k", BaseURL: srv.URL}, nil)
	if err == nil || !strings.Contains(err.Error(), "repeats") || n > 3 {
		t.Fatalf("after %d pages: %v", n, err)
	}
}
