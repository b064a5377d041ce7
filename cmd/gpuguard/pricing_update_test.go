package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const feedData = "estimator/catalog/pricefeed/testdata/"

// An overlay written from saved Retail Prices pages is what check then prices with.
func TestPricingUpdateFromFileFeedsCheck(t *testing.T) {
	repoRoot(t)
	dir := t.TempDir()
	overlay := filepath.Join(dir, "prices.json")
	r := runCLI(t, "", "pricing", "update", "--provider", "azure", "--output", overlay,
		"--from-file", feedData+"azure_gpu_page1.json", "--from-file", feedData+"azure_gpu_page2.json")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, s := range []string{"wrote 4 azure prices (1 instance types, 1 regions; on_demand 1, spot 1, reserved_1y 1, reserved_3y 1)", "left out: DevTest 1, Low Priority 1, Windows 1, not a GPU size 1"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("summary lacks %q:\n%s", s, r.stdout)
		}
	}
	tf := filepath.Join(dir, "main.tf")
	os.WriteFile(tf, []byte(`
resource "azurerm_linux_virtual_machine" "train" {
  name            = "train"
  location        = "eastus"
  size            = "Standard_NC24ads_A100_v4"
  priority        = "Spot"
  eviction_policy = "Deallocate"
}
`), 0o644)
	r = runCLI(t, "", "check", dir, "--format", "json", "--catalog", overlay, "--fail-on", "never")
	if r.code != exitOK {
		t.Fatalf("check: exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Catalog struct {
			Updated string
			Overlay string
			Sources []string
		}
		Resources []struct {
			HourlyCost     float64 `json:"hourly_cost"`
			PriceEstimated bool    `json:"price_estimated"`
			PriceSources   []struct {
				Source, Date string
			} `json:"price_sources"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	res := doc.Resources[0]
	if res.HourlyCost != 1.102 || res.PriceEstimated || res.PriceSources[0].Date != testNow.Format("2006-01-02") ||
		!strings.HasPrefix(res.PriceSources[0].Source, "Azure Retail Prices API") {
		t.Errorf("priced %+v", res)
	}
	if doc.Catalog.Overlay != filepath.ToSlash(overlay) || doc.Catalog.Updated != "2026-11-21" {
		t.Errorf("catalog %+v", doc.Catalog)
	}
}

// A second provider is added to the same overlay; a rerun replaces only what it fetched.
func TestPricingUpdateMergesOverlays(t *testing.T) {
	repoRoot(t)
	overlay := filepath.Join(t.TempDir(), "prices.json")
	run := func(args ...string) {
		t.Helper()
		r := runCLI(t, "", append([]string{"pricing", "update", "--output", overlay}, args...)...)
		if r.code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	count := func() map[string]int {
		b, err := os.ReadFile(overlay)
		if err != nil {
			t.Fatal(err)
		}
		var o struct {
			Rows []struct{ Provider, Region string }
		}
		if err := json.Unmarshal(b, &o); err != nil {
			t.Fatal(err)
		}
		m := map[string]int{}
		for _, r := range o.Rows {
			m[r.Provider]++
		}
		return m
	}
	run("--provider", "azure", "--from-file", feedData+"azure_gpu_page1.json", "--from-file", feedData+"azure_gpu_page2.json")
	run("--provider", "aws", "--from-file", feedData+"aws_offer_constructed.json")
	if c := count(); c["azure"] != 4 || c["aws"] != 5 {
		t.Fatalf("after two providers: %v", c)
	}
	// aws again for us-east-1 only: eu-west-1's row stays, us-east-1's are replaced, not doubled.
	run("--provider", "aws", "--region", "us-east-1", "--from-file", feedData+"aws_offer_constructed.json")
	if c := count(); c["azure"] != 4 || c["aws"] != 5 {
		t.Fatalf("after a rerun: %v", c)
	}
	run("--provider", "azure", "--from-file", feedData+"azure_retail_prices_nd96isr_h100_v5_eastus.json")
	if c := count(); c["azure"] != 2 {
		t.Fatalf("a rerun for eastus replaces eastus: %v", c)
	}
}

func TestPricingUpdateFromTheNetwork(t *testing.T) {
	repoRoot(t)
	page1, _ := os.ReadFile(feedData + "azure_gpu_page1.json")
	page2, _ := os.ReadFile(feedData + "azure_gpu_page2.json")
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("next") == "" {
			w.Write([]byte(strings.Replace(string(page1), `"PAGE2"`, fmt.Sprintf("%q", srv.URL+"/api/retail/prices?next=2"), 1)))
			return
		}
		w.Write(page2)
	}))
	defer srv.Close()
	overlay := filepath.Join(t.TempDir(), "azure.json")
	r := runCLI(t, "", "pricing", "update", "--provider", "azure", "--region", "eastus", "--output", overlay, "--api-url", srv.URL+"/api/retail/prices")
	if r.code != exitOK || !strings.Contains(r.stdout, "wrote 4 azure prices") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestPricingUpdateErrors(t *testing.T) {
	repoRoot(t)
	dir := t.TempDir()
	notOverlay := filepath.Join(dir, "notes.txt")
	os.WriteFile(notOverlay, []byte("my notes\n"), 0o644)
	emptyAzure := filepath.Join(dir, "empty.json")
	os.WriteFile(emptyAzure, []byte(`{"Items": [], "NextPageLink": null}`), 0o644)
	out := filepath.Join(dir, "out.json")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--output", out}, "--provider is required"},
		{[]string{"--provider", "oracle", "--output", out}, "--provider must be azure, aws or gcp"},
		{[]string{"--provider", "azure"}, "--output is required"},
		{[]string{"--provider", "azure", "--output", out}, "name the regions to fetch with --region"},
		{[]string{"--provider", "aws", "--output", out}, "name the regions to fetch with --region"},
		{[]string{"--provider", "gcp", "--output", out}, "GOOGLE_API_KEY"},
		{[]string{"--provider", "azure", "--output", out, "--from-file", "nope.json"}, "--from-file: open nope.json"},
		{[]string{"--provider", "azure", "--output", out, "--from-file", feedData + "aws_offer_constructed.json"}, "not an Azure Retail Prices response"},
		{[]string{"--provider", "azure", "--output", out, "--from-file", emptyAzure}, "no GPU prices found"},
		{[]string{"--provider", "aws", "--output", out, "--from-file", feedData + "azure_gpu_page1.json"}, "no GPU prices found for aws"},
		{[]string{"--provider", "azure", "--output", notOverlay, "--from-file", feedData + "azure_gpu_page1.json"}, "refusing to overwrite a file that is not an overlay"},
	} {
		r := runCLI(t, "", append([]string{"pricing", "update"}, tc.args...)...)
		if r.code != exitError || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tc.args, r.code, r.stderr, tc.msg)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed run wrote %s", out)
	}
	if b, _ := os.ReadFile(notOverlay); string(b) != "my notes\n" {
		t.Errorf("the user's file was overwritten")
	}
}
