// Command gencatalog turns the team's reference price tables (shared/reference/pricing) into the
// catalog files embedded in gpuguard: data/instances.csv and data/prices.csv. Run it when the
// reference tables change, review the diff, and commit the output:
//
//	go run ./estimator/catalog/internal/gencatalog -ref ../shared/reference/pricing -out estimator/catalog/data
//
// Every price row keeps its source and date; a figure without a dated source is written with
// estimated=true and the reason in basis, so check output marks it as an estimate.
package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const (
	gcpRegionalSource = "Cyclenerd/google-cloud-pricing-cost-calculator pricing data (Apache-2.0), built from the Cloud Billing Catalog"
	gcpRegionalDate   = "2026-07-30"
	// awsRegionalSource is where aws_regional_ondemand.csv comes from: the on-demand "Price" of
	// one instance type per family, in every region the snapshot lists it (Linux).
	awsRegionalSource = "skypilot-org/skypilot-catalog catalogs/v7/aws/vms.csv @001367d2 (Apache-2.0; undated snapshot)"
	// azureRegionalSource is where azure_regional.csv comes from: Linux pay-as-you-go "Price"
	// and "SpotPrice" of the catalog's Azure types in the US regions the snapshot covers. The
	// eastus figures of the main reference table come from the same snapshot.
	azureRegionalSource = "skypilot-org/skypilot-catalog catalogs/v6/azure/vms.csv @098741e7 (Linux PAYG)"
)

type instance struct {
	provider, typ, gpu, kind string
	gpuCount, gpuMem         string
	vcpu, mem                string
}

type price struct {
	provider, typ, region, option, usd, source, date, estimated, basis string
}

func main() {
	ref := flag.String("ref", "../shared/reference/pricing", "reference pricing directory")
	awsRegional := flag.String("aws-regional", "estimator/catalog/internal/gencatalog/aws_regional_ondemand.csv", "AWS on-demand prices by region, one type per family")
	azureRegional := flag.String("azure-regional", "estimator/catalog/internal/gencatalog/azure_regional.csv", "Azure on-demand and spot prices by region, eastus included")
	out := flag.String("out", "estimator/catalog/data", "output directory")
	flag.Parse()
	if err := run(*ref, *awsRegional, *azureRegional, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gencatalog:", err)
		os.Exit(1)
	}
}

func readCSV(path string) ([]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = strings.TrimSpace(r[i])
		}
		out = append(out, m)
	}
	return out, nil
}

// gpuKey maps the reference tables' GPU names to the catalog's GPU keys (data/gpus.csv).
func gpuKey(model, memGiB string) (string, error) {
	m := strings.ToLower(model)
	switch {
	case strings.HasPrefix(m, "(none"):
		return "", nil
	case strings.Contains(m, "h100 nvl"):
		return "h100-nvl", nil
	case strings.Contains(m, "h100"):
		return "h100-80gb", nil
	case strings.Contains(m, "h200"):
		return "h200", nil
	case strings.Contains(m, "b200"):
		return "b200", nil
	case strings.Contains(m, "a100"):
		if memGiB == "80" || strings.Contains(m, "80gb") {
			return "a100-80gb", nil
		}
		return "a100-40gb", nil
	case strings.Contains(m, "v100"):
		if memGiB == "32" || strings.Contains(m, "32gb") {
			return "v100-32gb", nil
		}
		return "v100-16gb", nil
	case strings.Contains(m, "a10g"):
		return "a10g", nil
	case strings.Contains(m, "a10"):
		return "a10", nil
	case strings.Contains(m, "l40s"):
		return "l40s", nil
	case strings.Contains(m, "l4"):
		return "l4", nil
	case strings.Contains(m, "t4"):
		return "t4", nil
	case strings.Contains(m, "p100"):
		return "p100", nil
	case m == "nvidia p4":
		return "p4", nil
	case strings.Contains(m, "radeon pro v520"):
		return "radeon-pro-v520", nil
	case strings.Contains(m, "inferentia2"):
		return "inferentia2", nil
	case strings.Contains(m, "trainium"):
		return "trainium", nil
	}
	return "", fmt.Errorf("unknown GPU model %q", model)
}

var gcpKeys = map[string]string{
	"a100": "a100-40gb", "a100-80gb": "a100-80gb", "h100-80gb": "h100-80gb", "h100-80gb-mega": "h100-80gb",
	"l4": "l4", "rtx6000": "rtx-pro-6000", "": "",
}

// gcpGPUMemory is GPU memory per GPU for the regional GCP file, which has no memory column.
var gcpGPUMemory = map[string]string{
	"a100-40gb": "40", "a100-80gb": "80", "h100-80gb": "80", "l4": "24", "rtx-pro-6000": "96",
}

// sliceMemory is the GPU memory of count GPUs of mem GiB each when count is a fraction: a vGPU
// slice (the fractional G4 types) has its share of the GPU's memory, as the AWS and Azure rows
// of the main file give it ("gpu_memory is the slice"). Whole GPUs keep mem per GPU.
func sliceMemory(mem, count string) string {
	c, err := strconv.ParseFloat(count, 64)
	m, err2 := strconv.ParseFloat(mem, 64)
	if err != nil || err2 != nil || c <= 0 || c >= 1 {
		return mem
	}
	return strconv.FormatFloat(math.Round(m*c*100)/100, 'f', -1, 64)
}

func run(ref, awsRegional, azureRegional, out string) error {
	main, err := readCSV(filepath.Join(ref, "aws_gcp_azure_gpu_instances.csv"))
	if err != nil {
		return err
	}
	awsRegions, err := readCSV(awsRegional)
	if err != nil {
		return err
	}
	azureRegions, err := readCSV(azureRegional)
	if err != nil {
		return err
	}
	regional, err := readCSV(filepath.Join(ref, "gcp_machine_types_by_region.csv"))
	if err != nil {
		return err
	}
	insts := map[string]instance{}
	var prices []price
	addInst := func(i instance) { insts[i.provider+"|"+i.typ] = i }

	for _, r := range main {
		key, err := gpuKey(r["gpu_model"], r["gpu_memory_gib_per_gpu"])
		if err != nil {
			return err
		}
		kind := "instance"
		typ := r["instance_type"]
		switch {
		case strings.HasPrefix(typ, "accelerator:"):
			kind = "accelerator"
			typ = strings.TrimPrefix(typ, "accelerator:")
		case key == "":
			kind = "vm"
		}
		addInst(instance{provider: r["provider"], typ: typ, gpu: key, kind: kind,
			gpuCount: r["gpu_count"], gpuMem: r["gpu_memory_gib_per_gpu"], vcpu: r["vcpu"], mem: r["memory_gib"]})
		if r["provider"] == "gcp" && kind != "accelerator" {
			continue // GCP machine prices come from the regional table below, for all 40 regions
		}
		rows := mainRowPrices(r, typ)
		prices = append(prices, rows...)
		if r["provider"] == "aws" {
			derived, err := awsRegionalPrices(rows, awsRegions)
			if err != nil {
				return err
			}
			prices = append(prices, derived...)
		}
		if r["provider"] == "azure" {
			derived, err := azureRegionalPrices(rows, azureRegions)
			if err != nil {
				return err
			}
			prices = append(prices, derived...)
		}
	}
	for _, r := range regional {
		key, ok := gcpKeys[r["gpu_key"]]
		if !ok {
			return fmt.Errorf("unknown GCP gpu_key %q", r["gpu_key"])
		}
		kind := "instance"
		if key == "" {
			kind = "vm"
		}
		if _, seen := insts["gcp|"+r["machine_type"]]; !seen || kind == "instance" {
			addInst(instance{provider: "gcp", typ: r["machine_type"], gpu: key, kind: kind,
				gpuCount: r["gpu_count"], gpuMem: sliceMemory(gcpGPUMemory[key], r["gpu_count"]), vcpu: r["vcpu"], mem: r["memory_gib"]})
		}
		for opt, col := range map[string]string{"on_demand": "on_demand_usd_per_hour", "spot": "spot_usd_per_hour",
			"reserved_1y": "commit_1y_usd_per_hour", "reserved_3y": "commit_3y_usd_per_hour"} {
			if r[col] == "" {
				continue
			}
			basis := ""
			if strings.HasPrefix(opt, "reserved") {
				basis = "resource-based committed use discount"
			}
			prices = append(prices, price{provider: "gcp", typ: r["machine_type"], region: r["region"], option: opt,
				usd: r[col], source: gcpRegionalSource, date: gcpRegionalDate, estimated: "false", basis: basis})
		}
	}
	return write(out, insts, prices)
}

// awsRegionalPrices derives an AWS type's on-demand price in the regions other than us-east-1
// from its dated us-east-1 price and the regional ratio of its family: the price of the family's
// type in aws_regional_ondemand.csv in that region over its price in us-east-1. AWS prices a
// family's sizes by the same regional factor (g5.12xlarge, .16xlarge and .24xlarge are all
// ×1.4503 in ap-northeast-1 in the snapshot), and the ratio carries over the June 2025 P4/P5 cut,
// which the snapshot predates. The figures are estimates: the snapshot is undated and the
// factor is the family's, not the size's.
func awsRegionalPrices(rows []price, regional []map[string]string) ([]price, error) {
	var base *price
	for i := range rows {
		if rows[i].option == "on_demand" && rows[i].region == "us-east-1" && rows[i].estimated == "false" {
			base = &rows[i]
		}
	}
	if base == nil {
		return nil, nil
	}
	family, _, _ := strings.Cut(base.typ, ".")
	var rep string
	byRegion := map[string]float64{}
	for _, r := range regional {
		f, _, _ := strings.Cut(r["instance_type"], ".")
		if f != family {
			continue
		}
		if rep != "" && r["instance_type"] != rep {
			return nil, fmt.Errorf("aws regional table: family %s has two types, %s and %s", family, rep, r["instance_type"])
		}
		rep = r["instance_type"]
		v, err := strconv.ParseFloat(r["on_demand_usd_per_hour"], 64)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("aws regional table: %s %s: bad price %q", rep, r["region"], r["on_demand_usd_per_hour"])
		}
		byRegion[r["region"]] = v
	}
	if _, ok := byRegion["us-east-1"]; !ok {
		if rep != "" {
			return nil, fmt.Errorf("aws regional table: %s has no us-east-1 price to take ratios from", rep)
		}
		return nil, nil
	}
	return byRatio(*base, rep, byRegion, base.source+"; regional ratio from "+awsRegionalSource)
}

// byRatio prices base's type in every other region of byRegion (a representative type's prices
// there, base's region included) at base's price × the representative's ratio between the two
// regions: an estimate whose basis shows the arithmetic.
func byRatio(base price, rep string, byRegion map[string]float64, source string) ([]price, error) {
	usd, err := strconv.ParseFloat(base.usd, 64)
	if err != nil {
		return nil, fmt.Errorf("%s: bad %s price %q", base.typ, base.region, base.usd)
	}
	when := base.date
	if when == "" {
		when = "undated"
	}
	home := byRegion[base.region]
	var out []price
	for region, v := range byRegion {
		if region == base.region {
			continue
		}
		ratio := v / home
		out = append(out, price{provider: base.provider, typ: base.typ, region: region, option: base.option,
			usd:       strconv.FormatFloat(math.Round(usd*ratio*1e6)/1e6, 'f', -1, 64),
			source:    source,
			estimated: "true",
			basis: fmt.Sprintf("%s price (%s) × %s's %s/%s ratio %.4f (%s/%s)",
				base.region, when, rep, region, base.region, ratio, trimFloat(v), trimFloat(home))})
	}
	return out, nil
}

// azureRegionalPrices derives an Azure type's on-demand and spot prices in the US regions of
// azure_regional.csv from its eastus price in the catalog and the type's own regional ratio in
// that table (its price in the region over its price in eastus, per purchase option). Where the
// eastus figure is the snapshot's own, the result is the snapshot's regional price; where it is
// dated or captured live, the ratio carries the regional premium over to it. A spot price the
// snapshot gives as equal to or above on-demand is no spot price (it does so for the H100
// types), so no spot ratio is taken from it. The figures are estimates: the snapshot is undated.
func azureRegionalPrices(rows []price, regional []map[string]string) ([]price, error) {
	var out []price
	for _, base := range rows {
		if base.region != "eastus" {
			continue
		}
		col := map[string]string{"on_demand": "on_demand_usd_per_hour", "spot": "spot_usd_per_hour"}[base.option]
		if col == "" {
			continue
		}
		byRegion := map[string]float64{}
		for _, r := range regional {
			if r["instance_type"] != base.typ {
				continue
			}
			od, err := strconv.ParseFloat(r["on_demand_usd_per_hour"], 64)
			if err != nil || od <= 0 {
				return nil, fmt.Errorf("azure regional table: %s %s: bad on-demand price %q", base.typ, r["region"], r["on_demand_usd_per_hour"])
			}
			v, err := strconv.ParseFloat(r[col], 64)
			if err != nil || v <= 0 {
				return nil, fmt.Errorf("azure regional table: %s %s: bad price %q", base.typ, r["region"], r[col])
			}
			if base.option == "spot" && v >= od {
				continue
			}
			byRegion[r["region"]] = v
		}
		if _, ok := byRegion["eastus"]; !ok {
			continue
		}
		source := base.source
		if source != azureRegionalSource {
			source += "; regional ratio from " + azureRegionalSource
		}
		derived, err := byRatio(base, base.typ, byRegion, source)
		if err != nil {
			return nil, err
		}
		out = append(out, derived...)
	}
	return out, nil
}

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// mainRowPrices reads the dated figures of one row of the main reference table.
func mainRowPrices(r map[string]string, typ string) []price {
	var out []price
	notes := r["notes"]
	add := func(opt, usd, source, date string) {
		if usd == "" {
			return
		}
		p := price{provider: r["provider"], typ: typ, region: r["region"], option: opt, usd: usd, source: source, estimated: "false"}
		if iso(date) {
			p.date = date
		} else {
			// Undated snapshots are real list prices of unknown age: kept, marked estimates.
			p.estimated = "true"
			p.basis = date
			if !strings.HasPrefix(date, "undated") {
				p.basis = "undated source: " + date
			}
		}
		if strings.HasPrefix(r["verified"], "ESTIMATE") {
			p.estimated = "true"
			p.basis = strings.TrimSpace(p.basis + "; reference marks the price an estimate")
			p.basis = strings.TrimPrefix(p.basis, "; ")
		}
		out = append(out, p)
	}
	odDate := r["date_on_demand"]
	if r["provider"] == "azure" && strings.Contains(notes, "on-demand matches infracost") {
		odDate = "2024-05-29" // the date of the Infracost golden lines the figure matches
	}
	add("on_demand", r["on_demand_usd_per_hour"], r["source_on_demand"], odDate)
	spotDate := r["date_spot"]
	if r["provider"] == "aws" && r["spot_usd_per_hour"] != "" {
		// AWS spot figures predate the June 2025 on-demand cut: stale estimates.
		spotDate = "undated snapshot that predates the June 2025 AWS price cut"
	}
	add("spot", r["spot_usd_per_hour"], strings.TrimSuffix(r["source_spot"], ","), spotDate)
	add("reserved_1y", r["reserved_1y_usd_per_hour"], r["source_reserved"], r["date_on_demand"])
	add("reserved_3y", r["reserved_3y_usd_per_hour"], r["source_reserved"], r["date_on_demand"])
	return out
}

func iso(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, c := range s {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func write(out string, insts map[string]instance, prices []price) error {
	var irows [][]string
	for _, i := range insts {
		irows = append(irows, []string{i.provider, i.typ, i.kind, i.gpu, i.gpuCount, i.gpuMem, i.vcpu, i.mem})
	}
	sort.Slice(irows, func(a, b int) bool { return strings.Join(irows[a][:2], "|") < strings.Join(irows[b][:2], "|") })
	if err := writeCSV(filepath.Join(out, "instances.csv"),
		[]string{"provider", "instance_type", "kind", "gpu", "gpu_count", "gpu_memory_gib", "vcpu", "memory_gib"}, irows); err != nil {
		return err
	}
	var prows [][]string
	for _, p := range prices {
		prows = append(prows, []string{p.provider, p.typ, p.region, p.option, p.usd, p.estimated, p.date, p.source, p.basis})
	}
	sort.Slice(prows, func(a, b int) bool { return strings.Join(prows[a][:4], "|") < strings.Join(prows[b][:4], "|") })
	return writeCSV(filepath.Join(out, "prices.csv"),
		[]string{"provider", "instance_type", "region", "purchase_option", "usd_per_hour", "estimated", "date", "source", "basis"}, prows)
}

func writeCSV(path string, header []string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write(header)
	_ = w.WriteAll(rows)
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
