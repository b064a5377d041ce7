package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/config"
	"github.com/gpuguard/gpuguard/internal/report"
	"github.com/gpuguard/gpuguard/internal/result"
)

// commonOptions are the flags DESIGN.md lists as common to the commands that read inputs.
type commonOptions struct {
	format   string
	config   string
	varFiles []string
	vars     []string
	region   string
	policies []string
	failOn   string
	catalog  string
	fallback string
	output   string
	// jsonOutput also writes the JSON document, whatever --format says (CI: annotations in the
	// log and the JSON for 'comment github --input' from one run).
	jsonOutput string
	// explain follows a table or Markdown report with each resource's price sources, notes and
	// fit (what JSON carries).
	explain bool
}

func (o *commonOptions) bind(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "", "output format: table|json|markdown|sarif|github (default table on a terminal, else json)")
	o.bindInputs(cmd)
	f.StringVar(&o.output, "output", "", "write the report to this file instead of stdout")
	f.StringVar(&o.jsonOutput, "json-output", "", "also write the JSON document to this file, whatever --format is")
	f.BoolVar(&o.explain, "explain", false, "table and markdown: follow the report with how each resource's numbers are made (price sources and dates, notes, fit)")
}

// bindInputs binds the flags that decide what is read and judged, without the output flags
// (comment github has its own output: the pull request).
func (o *commonOptions) bindInputs(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "config file (default .gpuguard.yaml found upward from the first path)")
	f.StringArrayVar(&o.varFiles, "var-file", nil, "Terraform variables file (repeatable, applied in order after terraform.tfvars and *.auto.tfvars)")
	f.StringArrayVar(&o.vars, "var", nil, "Terraform variable name=value (repeatable, applied last)")
	f.StringVar(&o.region, "region", "", "default region for resources whose manifests name none")
	f.StringArrayVar(&o.policies, "policy", nil, "directory of extra Rego policies (repeatable)")
	f.StringVar(&o.failOn, "fail-on", "deny", "exit 2 when findings reach this severity: deny|warn|notice|never")
	f.StringVar(&o.catalog, "catalog", "", "price overlay written by 'gpuguard pricing update'")
	bindRegionFallback(f, &o.fallback)
}

func bindRegionFallback(f *pflag.FlagSet, to *string) {
	f.StringVar(to, "region-fallback", "", "none|nearest: price a region the catalog lacks at the nearest priced region's rate, as an estimate (default: the config's region_fallback, else none)")
}

// judging parses the flags that decide how a run reports and ends: --format (default by
// terminal) and --fail-on.
func (o *commonOptions) judging(e *env) (report.Format, int, error) {
	threshold, err := failThreshold(o.failOn)
	if err != nil {
		return "", 0, withCode(exitError, err)
	}
	format, err := defaultFormat(e, o.format, o.output != "")
	if err != nil {
		return "", 0, withCode(exitError, err)
	}
	return format, threshold, nil
}

// failThreshold parses --fail-on into a minimum severity rank (0: never fail).
func failThreshold(s string) (int, error) {
	switch s {
	case "deny", "warn", "notice":
		return result.Severity(s).Rank(), nil
	case "never":
		return 0, nil
	}
	return 0, fmt.Errorf("--fail-on must be deny, warn, notice or never, got %q", s)
}

// loadConfig finds and loads the config for a run over paths.
func loadConfig(flag string, paths []string) (*config.Config, error) {
	start := "."
	if len(paths) > 0 && paths[0] != "-" {
		start = paths[0]
	}
	path := flag
	if path == "" {
		path = config.Find(start)
	}
	return config.Load(path, start)
}

// loadCatalog returns the embedded catalog with the overlay from --catalog or the config, and
// the nearest-region fallback when --region-fallback or the config asks for it.
func loadCatalog(flag, fallback string, cfg *config.Config) (*catalog.Catalog, string, error) {
	cat, overlay, err := loadPrices(flag, cfg)
	if err != nil {
		return nil, "", err
	}
	if fallback == "" && cfg != nil {
		fallback = cfg.RegionFallback
	}
	switch fallback {
	case "", "none":
	case "nearest":
		cat = cat.WithNearestRegionFallback()
	default:
		return nil, "", fmt.Errorf("--region-fallback must be none or nearest, got %q", fallback)
	}
	return cat, overlay, nil
}

func loadPrices(flag string, cfg *config.Config) (*catalog.Catalog, string, error) {
	cat, err := catalog.Default()
	if err != nil {
		return nil, "", fmt.Errorf("embedded catalog: %w", err)
	}
	overlay := flag
	if overlay == "" && cfg != nil && cfg.Catalog != "" {
		if overlay, err = cfg.ResolveInside("catalog", cfg.Catalog); err != nil {
			return nil, "", err
		}
	}
	if overlay == "" {
		return cat, "", nil
	}
	rows, err := catalog.ReadOverlayFile(overlay)
	if err != nil {
		return nil, "", err
	}
	cat, err = cat.WithOverlay(rows)
	if err != nil {
		return nil, "", fmt.Errorf("price overlay %s: %w", overlay, err)
	}
	return cat, filepath.ToSlash(overlay), nil
}
