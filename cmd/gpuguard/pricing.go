package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/report"
)

func newPricingCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "pricing", Short: "The price catalog"}
	cmd.AddCommand(newPricingListCommand(e), newPricingUpdateCommand(e))
	return cmd
}

type pricingListOptions struct {
	provider, gpu, region, format, catalog string
}

// pricingRow is one row of `pricing list --format json`.
type pricingRow struct {
	Provider       string  `json:"provider"`
	InstanceType   string  `json:"instance_type"`
	GPU            string  `json:"gpu"`
	GPUCount       float64 `json:"gpu_count"`
	GPUMemoryGiB   float64 `json:"gpu_memory_gib"`
	Region         string  `json:"region"`
	PurchaseOption string  `json:"purchase_option"`
	USDPerHour     string  `json:"usd_per_hour"`
	Estimated      bool    `json:"estimated"`
	Date           string  `json:"date"`
	Source         string  `json:"source"`
	Basis          string  `json:"basis,omitempty"`
}

func newPricingListCommand(e *env) *cobra.Command {
	var o pricingListOptions
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the catalog's prices with their sources and dates",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cat, _, err := loadPrices(o.catalog, nil)
			if err != nil {
				return withCode(exitError, err)
			}
			format, err := defaultFormat(e, o.format, false)
			if err != nil {
				return withCode(exitError, err)
			}
			gpu := ""
			if o.gpu != "" {
				g, ok := findGPU(cat, o.gpu)
				if !ok {
					return withCode(exitError, fmt.Errorf("unknown GPU %q (known: %s)", o.gpu, gpuKeys(cat)))
				}
				gpu = g.Key
			}
			var rows []pricingRow
			for _, p := range cat.Prices(o.provider, gpu, o.region) {
				in, _ := cat.Instance(p.Provider, p.Type)
				name := ""
				if g, ok := cat.GPU(in.GPU); ok {
					name = g.Name
				}
				rows = append(rows, pricingRow{Provider: p.Provider, InstanceType: p.Type, GPU: name, GPUCount: in.GPUCount,
					GPUMemoryGiB: in.GPUMemoryGiB, Region: p.Region, PurchaseOption: string(p.Option), USDPerHour: p.Hourly.Decimal(6),
					Estimated: p.Estimated, Date: p.Date, Source: p.Source, Basis: p.Basis})
			}
			if len(rows) == 0 {
				return withCode(exitError, fmt.Errorf("no prices match the filters"))
			}
			switch format {
			case report.JSON:
				return report.WriteJSON(e.stdout, map[string]any{"updated": cat.Updated(), "prices": rows})
			case report.Table:
				tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "PROVIDER\tINSTANCE TYPE\tGPUS\tREGION\tPURCHASE\tUSD/HOUR\tDATE\tSOURCE")
				for _, r := range rows {
					gpus := "-"
					if r.GPU != "" {
						gpus = fmt.Sprintf("%g× %s", r.GPUCount, r.GPU)
					}
					date := r.Date
					if r.Estimated {
						date = "estimate"
						if r.Date != "" {
							date = r.Date + " (estimate)"
						}
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Provider, r.InstanceType, gpus, r.Region, r.PurchaseOption, r.USDPerHour, date, shorten(r.Source, 60))
				}
				return tw.Flush()
			}
			return withCode(exitError, fmt.Errorf("pricing list supports --format table or json"))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.provider, "provider", "", "aws, gcp or azure")
	f.StringVar(&o.gpu, "gpu", "", "GPU model (h100, a100-80gb, l4, ...)")
	f.StringVar(&o.region, "region", "", "region")
	f.StringVar(&o.format, "format", "", "table or json")
	f.StringVar(&o.catalog, "catalog", "", "price overlay to apply")
	return cmd
}

// findGPU matches a user's GPU name loosely: "h100" finds h100-80gb, "A100 80GB" finds a100-80gb.
func findGPU(cat *catalog.Catalog, name string) (catalog.GPU, bool) {
	want := strings.ToLower(strings.NewReplacer(" ", "-", "_", "-", "nvidia-", "").Replace(strings.TrimSpace(name)))
	if g, ok := cat.GPU(want); ok {
		return g, true
	}
	for _, g := range cat.GPUs() {
		if strings.HasPrefix(g.Key, want) {
			return g, true
		}
	}
	return catalog.GPU{}, false
}

func gpuKeys(cat *catalog.Catalog) string {
	var keys []string
	for _, g := range cat.GPUs() {
		keys = append(keys, g.Key)
	}
	return strings.Join(keys, ", ")
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
