package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/estimator/catalog/pricefeed"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

type pricingUpdateOptions struct {
	provider  string
	regions   []string
	fromFiles []string
	output    string
	apiURL    string
}

func newPricingUpdateCommand(e *env) *cobra.Command {
	var o pricingUpdateOptions
	cmd := &cobra.Command{
		Use:   "update --provider azure|aws|gcp [--region R]... [--from-file F]... --output FILE",
		Short: "Write a fresher price overlay from the providers' public price data",
		Long: `update reads current prices from a provider's public price data and writes them as a catalog
overlay, one row per GPU instance type, region and purchase option, each with its source and
today's date. check, diff and fit use the overlay with --catalog FILE or the config's
"catalog: FILE"; its rows replace the embedded rows of the same provider, region, type and
purchase option.

  azure  the Retail Prices API (public, no key): Linux pay-as-you-go, spot, and 1- and 3-year
         reservations divided over their term's hours. --region is required.
  aws    the Price List bulk offer file of each --region (public, hundreds of MB, streamed):
         Linux, shared tenancy, on demand and standard no-upfront reservations. --from-file
         also reads a saved 'aws pricing get-products' response.
  gcp    the Cloud Billing Catalog API with the key in $GOOGLE_API_KEY: machine types composed
         from their core, memory and GPU SKUs; on demand, spot and 1- and 3-year commitments.

With --from-file the data is read from saved responses instead of the network (several files
for several pages). An existing --output overlay is refreshed: its rows for other providers, and
for regions this run did not cover, are kept. docs/pricing.md says where every figure comes from.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPricingUpdate(e, &o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.provider, "provider", "", "azure, aws or gcp (required)")
	f.StringArrayVar(&o.regions, "region", nil, "region to fetch (repeatable; required for azure and aws unless --from-file)")
	f.StringArrayVar(&o.fromFiles, "from-file", nil, "read a saved API response or offer file instead of the network (repeatable)")
	f.StringVar(&o.output, "output", "", "overlay file to write (required)")
	f.StringVar(&o.apiURL, "api-url", "", "the provider's endpoint, for a mirror or a proxy (default: the public one)")
	return cmd
}

func runPricingUpdate(e *env, o *pricingUpdateOptions) error {
	switch o.provider {
	case parser.Azure, parser.AWS, parser.GCP:
	case "":
		return withCode(exitError, fmt.Errorf("--provider is required: azure, aws or gcp"))
	default:
		return withCode(exitError, fmt.Errorf("--provider must be azure, aws or gcp, got %q", o.provider))
	}
	if o.output == "" {
		return withCode(exitError, fmt.Errorf("--output is required: the overlay file to write"))
	}
	cat, err := catalog.Default()
	if err != nil {
		return withCode(exitError, err)
	}
	now := e.now().UTC()
	opts := pricefeed.Options{Regions: o.regions, Date: now.Format("2006-01-02"), BaseURL: o.apiURL, APIKey: e.getenv("GOOGLE_API_KEY")}
	if e.stderrTerminal {
		opts.Progress = progressPrinter(e)
	}
	res, err := fetchPrices(e, o, opts, cat)
	if opts.Progress != nil {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
	if err != nil {
		return withCode(exitError, err)
	}
	if len(res.Rows) == 0 {
		return withCode(exitError, fmt.Errorf("no GPU prices found for %s%s; left out: %s", o.provider, regionText(o.regions), skippedText(res.Skipped)))
	}
	rows, kept, err := mergeOverlay(o.output, o.provider, o.regions, res.Rows)
	if err != nil {
		return withCode(exitError, err)
	}
	ov := catalog.Overlay{GeneratedAt: now.Format("2006-01-02T15:04:05Z"), Provider: o.provider}
	if kept > 0 {
		ov.Provider = "" // the file now holds several providers' or runs' rows
	}
	for _, p := range rows {
		ov.Rows = append(ov.Rows, catalog.Row(p))
	}
	if err := writeFileAtomic(o.output, func(w io.Writer) error { return catalog.WriteOverlay(w, ov) }); err != nil {
		return withCode(exitError, fmt.Errorf("--output: %w", err))
	}
	printUpdateSummary(e, o, res, kept, cat)
	return nil
}

func fetchPrices(e *env, o *pricingUpdateOptions, opts pricefeed.Options, cat *catalog.Catalog) (*pricefeed.Result, error) {
	if len(o.fromFiles) == 0 {
		switch o.provider {
		case parser.Azure:
			return pricefeed.FetchAzure(e.ctx, opts)
		case parser.AWS:
			return pricefeed.FetchAWS(e.ctx, opts)
		default:
			return pricefeed.FetchGCP(e.ctx, opts, cat.AllInstances(parser.GCP))
		}
	}
	var readers []io.Reader
	for _, name := range o.fromFiles {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("--from-file: %w", err)
		}
		defer f.Close()
		readers = append(readers, f)
	}
	var res *pricefeed.Result
	var err error
	switch o.provider {
	case parser.Azure:
		res, err = pricefeed.ParseAzureFiles(readers, opts)
	case parser.AWS:
		res, err = pricefeed.ParseAWSFiles(readers, opts)
	default:
		res, err = pricefeed.ParseGCPFiles(readers, opts, cat.AllInstances(parser.GCP))
	}
	if err != nil {
		return nil, fmt.Errorf("--from-file: %w", err)
	}
	return res, nil
}

// mergeOverlay keeps the rows of an existing overlay that this run does not replace: other
// providers, and this provider's regions the run did not cover.
func mergeOverlay(path, provider string, regions []string, fresh []catalog.Price) ([]catalog.Price, int, error) {
	old, err := catalog.ReadOverlayFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fresh, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%v (refusing to overwrite a file that is not an overlay)", err)
	}
	covered := map[string]bool{}
	for _, p := range fresh {
		covered[p.Region] = true
	}
	for _, r := range regions {
		covered[parser.NormalizeRegion(r)] = true
	}
	out := append([]catalog.Price(nil), fresh...)
	kept := 0
	for _, p := range old {
		if p.Provider == provider && covered[p.Region] {
			continue
		}
		out = append(out, p)
		kept++
	}
	catalog.SortPrices(out)
	return out, kept, nil
}

// writeFileAtomic writes a file through a temporary one in the same directory, so that a
// failed run never leaves a half-written overlay.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

func progressPrinter(e *env) func(pricefeed.Progress) {
	return func(p pricefeed.Progress) {
		line := fmt.Sprintf("%s: %s", p.What, byteText(p.Done))
		if p.Total > 0 {
			line = fmt.Sprintf("%s: %s of %s (%d%%)", p.What, byteText(p.Done), byteText(p.Total), p.Done*100/p.Total)
		} else if !strings.Contains(p.What, "file") {
			line = p.What
		}
		if p.Rows > 0 {
			line += fmt.Sprintf(", %s prices", money.Group(int64(p.Rows)))
		}
		fmt.Fprintf(e.stderr, "\r\033[K%s", line)
	}
}

func byteText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func regionText(regions []string) string {
	if len(regions) == 0 {
		return ""
	}
	return " in " + strings.Join(regions, ", ")
}

func skippedText(skipped map[string]int) string {
	if len(skipped) == 0 {
		return "nothing"
	}
	var keys []string
	for k := range skipped {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if skipped[keys[i]] != skipped[keys[j]] {
			return skipped[keys[i]] > skipped[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %s", k, money.Group(int64(skipped[k]))))
	}
	return strings.Join(parts, ", ")
}

func printUpdateSummary(e *env, o *pricingUpdateOptions, res *pricefeed.Result, kept int, cat *catalog.Catalog) {
	types, regions := map[string]bool{}, map[string]bool{}
	byOption := map[parser.PurchaseOption]int{}
	var unknown []string
	for _, p := range res.Rows {
		if !types[p.Type] {
			if _, ok := cat.Instance(p.Provider, p.Type); !ok {
				unknown = append(unknown, p.Type)
			}
		}
		types[p.Type], regions[p.Region] = true, true
		byOption[p.Option]++
	}
	var opts []string
	for _, opt := range parser.PurchaseOptions {
		if byOption[opt] > 0 {
			opts = append(opts, fmt.Sprintf("%s %s", opt, money.Group(int64(byOption[opt]))))
		}
	}
	fmt.Fprintf(e.stdout, "gpuguard: wrote %s %s prices (%d instance types, %d regions; %s) to %s\n",
		money.Group(int64(len(res.Rows))), o.provider, len(types), len(regions), strings.Join(opts, ", "), o.output)
	if kept > 0 {
		fmt.Fprintf(e.stdout, "  kept %s rows of other providers or regions already in %s\n", money.Group(int64(kept)), o.output)
	}
	fmt.Fprintf(e.stdout, "  left out: %s\n", skippedText(res.Skipped))
	if len(unknown) > 0 {
		sort.Strings(unknown)
		show := unknown
		if len(show) > 8 {
			show = append(show[:8:8], fmt.Sprintf("and %d more", len(unknown)-8))
		}
		fmt.Fprintf(e.stdout, "  %d types are not in gpuguard's instance table (GPU model and count unknown), so their prices are kept but not used yet: %s\n",
			len(unknown), strings.Join(show, ", "))
	}
	for _, n := range res.Notes {
		fmt.Fprintf(e.stdout, "  %s\n", n)
	}
	fmt.Fprintf(e.stdout, "  use it with --catalog %s, or 'catalog: %s' in .gpuguard.yaml\n", o.output, o.output)
}
