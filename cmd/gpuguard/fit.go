package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/estimator/memory"
	"github.com/gpuguard/gpuguard/internal/check"
	"github.com/gpuguard/gpuguard/internal/config"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/report"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/profiles"
)

type fitOptions struct {
	types                                                         []string
	region, provider, purchase, format, catalog, config, fallback string
}

// fitResult is the JSON of `gpuguard fit`.
type fitResult struct {
	Profile           string                  `json:"profile"`
	Workload          string                  `json:"workload"`
	Source            string                  `json:"source"` // estimate | measured
	RequiredGiBPerGPU float64                 `json:"required_gib_per_gpu"`
	GPUs              int                     `json:"gpus"`
	Breakdown         []estimator.MemoryTerm  `json:"breakdown"`
	Notes             []string                `json:"notes,omitempty"`
	Region            string                  `json:"region"`
	PurchaseOption    string                  `json:"purchase_option"`
	HoursPerMonth     float64                 `json:"hours_per_month"`
	Instances         []estimator.InstanceFit `json:"instances"`
}

func newFitCommand(e *env) *cobra.Command {
	var o fitOptions
	cmd := &cobra.Command{
		Use:   "fit PROFILE",
		Short: "Memory breakdown of a workload profile and the instances it fits",
		Long: `fit estimates the per-GPU peak memory of a workload profile (or reads its measured peak)
and judges it on instance types: the ones named with --instance-type, or every GPU type of the
provider priced in the region (on GCP also N1 VMs with T4, V100, P100 or P4 GPUs attached),
cheapest fitting first.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runFit(e, &o, args[0]) },
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.types, "instance-type", nil, "instance type to judge (repeatable; default: every GPU type in the region)")
	f.StringVar(&o.region, "region", "", "region (default: the config's, else us-east-1)")
	f.StringVar(&o.provider, "provider", "", "aws, gcp or azure (default: from the region)")
	f.StringVar(&o.purchase, "purchase-option", "on_demand", "on_demand, spot, reserved_1y or reserved_3y")
	f.StringVar(&o.format, "format", "", "table or json (default table on a terminal)")
	f.StringVar(&o.catalog, "catalog", "", "price overlay")
	bindRegionFallback(f, &o.fallback)
	f.StringVar(&o.config, "config", "", "config file")
	return cmd
}

func runFit(e *env, o *fitOptions, path string) error {
	format, err := defaultFormat(e, o.format, false)
	if err != nil {
		return withCode(exitError, err)
	}
	prof, err := profiles.Load(path)
	if err != nil {
		return withCode(exitError, err)
	}
	cfg, err := loadConfig(o.config, []string{path})
	if err != nil {
		return withCode(exitError, err)
	}
	cat, _, err := loadCatalog(o.catalog, o.fallback, cfg)
	if err != nil {
		return withCode(exitError, err)
	}
	region := o.region
	if region == "" {
		region = cfg.Region
	}
	if region == "" {
		region = "us-east-1"
	}
	provider := o.provider
	if provider == "" {
		provider = parser.ProviderOfRegion(region)
	}
	opt := parser.PurchaseOption(o.purchase)
	switch opt {
	case parser.OnDemand, parser.Spot, parser.Reserved1y, parser.Reserved3y:
	default:
		return withCode(exitError, fmt.Errorf("--purchase-option must be on_demand, spot, reserved_1y or reserved_3y"))
	}
	mem, err := memory.Of(prof)
	if err != nil {
		return withCode(exitError, fmt.Errorf("%s: %w", path, err))
	}
	pricer := &estimator.Pricer{Catalog: cat, HoursPerMonth: cfg.HoursPerMonth}
	res := fitResult{
		Profile: path, Workload: prof.Workload.Type, Source: "estimate", RequiredGiBPerGPU: roundTo(mem.PerGPUBytes/memory.GiB, 2),
		GPUs: mem.GPUs, Breakdown: estimator.Breakdown(mem), Notes: mem.Notes, Region: parser.NormalizeRegion(region),
		PurchaseOption: string(opt), HoursPerMonth: estimator.DefaultHoursPerMonth,
		Instances: pricer.FitInstances(prof, mem, o.types, provider, region, opt, thresholdsFrom(cfg)),
	}
	if cfg.HoursPerMonth > 0 {
		res.HoursPerMonth = cfg.HoursPerMonth
	}
	if mem.Measured {
		res.Source = "measured"
	}
	switch format {
	case report.JSON:
		return report.WriteJSON(e.stdout, res)
	case report.Table:
		return writeFitTable(e.stdout, &res)
	}
	return withCode(exitError, fmt.Errorf("fit supports --format table or json"))
}

func roundTo(f float64, digits int) float64 {
	p := 1.0
	for i := 0; i < digits; i++ {
		p *= 10
	}
	return float64(int64(f*p+0.5)) / p
}

func writeFitTable(w io.Writer, r *fitResult) error {
	fmt.Fprintf(w, "%s (%s): %.2f GiB per GPU, %s, over %d GPU%s\n\n", r.Profile, r.Workload, r.RequiredGiBPerGPU, r.Source, r.GPUs, plural(r.GPUs))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TERM\tGIB\tSOURCE")
	for _, t := range r.Breakdown {
		fmt.Fprintf(tw, "%s\t%.2f\t%s\n", t.Name, t.GiB, shorten(t.Source, 90))
	}
	tw.Flush()
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintf(w, "\nIn %s, %s, %g hours a month (* estimated price):\n", r.Region, strings.ReplaceAll(r.PurchaseOption, "_", "-"), r.HoursPerMonth)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "INSTANCE TYPE\tGPUS\tVERDICT\tUSE\tNEEDED\tMONTHLY\tNOTE")
	for _, row := range r.Instances {
		use, monthly := "-", "-"
		if row.MemoryUtilization != nil {
			use = fmt.Sprintf("%.0f%%", *row.MemoryUtilization*100)
		}
		if row.MonthlyCost != nil {
			monthly = money.Micros(*row.MonthlyCost).String()
			if row.PriceEstimated {
				monthly += "*"
			}
		}
		note := row.Reason
		if row.MIGSlice != "" {
			note = strings.TrimPrefix(note+"; fits MIG "+row.MIGSlice, "; ")
		}
		gpus := "-"
		if row.GPU != "" {
			gpus = fmt.Sprintf("%g× %s", row.GPUsPerInstance, row.GPU)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", row.InstanceType, gpus, row.Verdict, use, row.InstancesNeeded, monthly, note)
	}
	return tw.Flush()
}

func thresholdsFrom(cfg *config.Config) estimator.Thresholds { return check.Thresholds(cfg) }
