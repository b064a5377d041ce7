package check

import (
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/config"
	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
	"github.com/gpuguard/gpuguard/parser/scan"
	"github.com/gpuguard/gpuguard/parser/terraform"
)

// Options configure a run.
type Options struct {
	Config  *config.Config
	Catalog *catalog.Catalog
	// Overlay names the price overlay in use, for the report.
	Overlay string
	// Region is --region; it wins over the config's region.
	Region    string
	Terraform terraform.Options
	Stdin     io.Reader
	Workers   int
	// Now dates the run: the report says how old the catalog's prices are. Zero leaves it out.
	Now time.Time
}

// Run checks paths and returns the document.
func Run(paths []string, opts Options) *result.Check {
	cfg := opts.Config
	if cfg == nil {
		cfg = &config.Config{}
	}
	hours := cfg.HoursPerMonth
	if hours == 0 {
		hours = estimator.DefaultHoursPerMonth
	}
	info := result.CatalogInfo{Updated: opts.Catalog.Updated(), Sources: opts.Catalog.Sources(), Overlay: opts.Overlay}
	if !opts.Now.IsZero() {
		if age, ok := opts.Catalog.AgeDays(opts.Now); ok {
			info.AgeDays = &age
		}
	}
	doc := result.NewCheck(hours, info)
	// Files named by the input (file() in Terraform, profile paths) are read only inside the
	// checked paths and the project (package confine).
	readable := ReadableDirs(paths, cfg)
	tf := opts.Terraform
	if len(tf.FileDirs) == 0 {
		tf.FileDirs = readable
	}
	helmValues, err := cfg.HelmValueFiles()
	if err != nil {
		doc.Errors = append(doc.Errors, configError(cfg, err))
	}
	parsed := scan.Scan(paths, scan.Options{
		Terraform: tf,
		Kubernetes: kubernetes.Options{
			DefaultInstanceType: cfg.Kubernetes.DefaultInstanceType,
			DaemonSetNodes:      cfg.Kubernetes.DaemonSetNodes,
			GPUs:                estimator.GPUCatalog{Catalog: opts.Catalog},
		},
		HelmValues: helmValues,
		Stdin:      opts.Stdin, Workers: opts.Workers,
	})
	applyUsage(parsed.Resources, cfg)
	region := opts.Region
	if region == "" {
		region = cfg.Region
	}
	pricer := &estimator.Pricer{Catalog: opts.Catalog, DefaultRegion: region, HoursPerMonth: hours, Today: opts.Now}
	doc.Resources = pricer.EstimateAll(parsed.Resources)
	doc.Errors = append(doc.Errors, parsed.Errors...)
	doc.Errors = append(doc.Errors, assess(doc.Resources, parsed.Resources, cfg, pricer, confine.NewDirs(readable...))...)
	estimator.AssessNodeGroups(doc.Resources)
	doc.Warnings = append(doc.Warnings, parsed.Warnings...)
	for _, r := range parsed.Resources {
		if why := pricer.AttachProblem(r); why != "" {
			doc.Warnings = append(doc.Warnings, parser.Error{File: r.Source.File, Line: r.Source.Line, Message: r.Address + ": " + why + " (terraform apply would fail)"})
		}
	}
	doc.Warnings = append(doc.Warnings, estimator.FloorsPastLimits(doc.Resources)...)
	doc.Totals = estimator.Sum(doc.Resources)
	doc.Moves = parsed.Moves
	return doc
}

// configError is a config problem as an input error, at the config's line when it has one.
func configError(cfg *config.Config, err error) parser.Error {
	var ce *config.Error
	if errors.As(err, &ce) {
		return parser.Error{File: ce.File, Line: ce.Line, Message: ce.Msg}
	}
	return parser.Error{File: cfg.Path, Message: err.Error()}
}

// ReadableDirs are the directories whose files the input under review may name: the checked
// paths (a file's directory for a file) and the project: config.Root (the config's directory,
// else the git repository, else — outside any repository and without a config — the working
// directory) and the git repository around it. A pull request is always checked inside its
// repository, so there the working directory is never added as such.
func ReadableDirs(paths []string, cfg *config.Config) []string {
	var dirs []string
	for _, p := range paths {
		if p == "-" || p == "" {
			continue
		}
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			p = filepath.Dir(p)
		}
		dirs = append(dirs, p)
	}
	if cfg != nil {
		dirs = append(dirs, cfg.Root, cfg.Repo)
	}
	if len(dirs) == 0 {
		dirs = []string{"."} // stdin only: the working directory
	}
	return dirs
}

// applyUsage sets hours for resources matched by the config's usage globs; where several match,
// the most specific (longest) pattern wins.
func applyUsage(rs []parser.Resource, cfg *config.Config) {
	if len(cfg.Usage) == 0 {
		return
	}
	for i := range rs {
		if rs[i].HoursPerMonth > 0 {
			continue // the manifest said (an annotation, a CronJob schedule)
		}
		if glob, u, ok := matchGlob(rs[i].Root, rs[i].Address, cfg.Usage); ok && u.HoursPerMonth > 0 {
			rs[i].HoursPerMonth = u.HoursPerMonth
			rs[i].Note("%g hours a month from config usage %q", u.HoursPerMonth, glob)
		}
	}
}

// matchGlob finds the longest glob pattern (the most specific) that matches a resource.
// Patterns use path.Match syntax, where * does not cross "/". A pattern without an instance key
// also matches every instance: aws_instance.train matches aws_instance.train[0]. A pattern with
// a "|" matches the resource's id, root|address, so that one address deployed by several roots
// (Terragrunt units, kustomize overlays) can be told apart: "live/prod/*|aws_eks_node_group.gpu".
func matchGlob[T any](root, addr string, m map[string]T) (string, T, bool) {
	var best string
	var val T
	found := false
	candidates := []string{addr}
	if base := stripInstanceKey(addr); base != addr {
		candidates = append(candidates, base)
	}
	if root != "" {
		for _, a := range candidates {
			candidates = append(candidates, root+"|"+a)
		}
	}
	for pat, v := range m {
		for _, a := range candidates {
			if ok, err := path.Match(pat, a); (err == nil && ok) || pat == a {
				if !found || len(pat) > len(best) || len(pat) == len(best) && pat < best {
					best, val, found = pat, v, true
				}
				break
			}
		}
	}
	return best, val, found
}

// stripInstanceKey removes a trailing count or for_each key: x[0] and x["a"] become x.
func stripInstanceKey(addr string) string {
	if !strings.HasSuffix(addr, "]") {
		return addr
	}
	depth := 0
	for i := len(addr) - 1; i >= 0; i-- {
		switch addr[i] {
		case ']':
			depth++
		case '[':
			depth--
			if depth == 0 {
				return addr[:i]
			}
		}
	}
	return addr
}
