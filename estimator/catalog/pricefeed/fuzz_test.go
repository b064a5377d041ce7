package pricefeed

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/parser"
)

func seeds(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"products": {}, "terms": {"OnDemand": {}}}`))
}

// checkRows asserts what every parser promises: rows that the catalog accepts, never a $0 row.
func checkRows(t *testing.T, res *Result) {
	for _, r := range res.Rows {
		if r.Hourly <= 0 || r.Source == "" || r.Date == "" {
			t.Fatalf("bad row %+v", r)
		}
	}
	for _, r := range res.Rows {
		if _, err := catalog.Row(r).Price(); err != nil {
			t.Fatalf("a row the overlay would refuse: %v", err)
		}
	}
}

func FuzzParseAWS(f *testing.F) {
	seeds(f, "aws_offer_constructed.json", "aws_pricing_getproducts_p5_constructed.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseAWS(bytes.NewReader(data), Options{Date: "2026-11-21"})
		if err == nil {
			checkRows(t, res)
		}
	})
}

func FuzzParseAzure(f *testing.F) {
	seeds(f, "azure_gpu_page1.json", "azure_gpu_page2.json", "azure_retail_prices_nd96isr_h100_v5_eastus.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseAzureFiles([]io.Reader{bytes.NewReader(data)}, Options{Date: "2026-11-21"})
		if err == nil {
			checkRows(t, res)
		}
	})
}

func FuzzParseGCP(f *testing.F) {
	seeds(f, "gcp_skus_compose_constructed.json", "gcp_cloudbilling_v1_skus_sample.json")
	cat, err := catalog.Default()
	if err != nil {
		f.Fatal(err)
	}
	instances := cat.AllInstances(parser.GCP)
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseGCPFiles([]io.Reader{bytes.NewReader(data)}, Options{Date: "2026-11-21"}, instances)
		if err == nil {
			checkRows(t, res)
		}
	})
}
