package catalog

import (
	"embed"
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

//go:embed data/*.csv
var dataFS embed.FS

// Instance kinds.
const (
	KindInstance    = "instance"    // GPUs included in the price
	KindVM          = "vm"          // a machine without GPUs; GPUs are attached and priced separately (GCP N1)
	KindAccelerator = "accelerator" // a per-GPU price for attached GPUs (GCP guest_accelerator)
)

// Instance is an instance, machine or VM type.
type Instance struct {
	Provider     string  `json:"provider"`
	Type         string  `json:"instance_type"`
	Kind         string  `json:"kind"`
	GPU          string  `json:"gpu,omitempty"` // key into the GPU table; empty for a VM without GPUs
	GPUCount     float64 `json:"gpu_count"`     // fractions are vGPU slices
	GPUMemoryGiB float64 `json:"gpu_memory_gib"`
	VCPU         int     `json:"vcpu,omitempty"`
	MemoryGiB    float64 `json:"memory_gib,omitempty"`
}

// Price is one hourly price with where it comes from.
type Price struct {
	Provider  string                `json:"provider"`
	Type      string                `json:"instance_type"`
	Region    string                `json:"region"`
	Option    parser.PurchaseOption `json:"purchase_option"`
	Hourly    money.Micros          `json:"-"`
	Estimated bool                  `json:"estimated"`
	Date      string                `json:"date,omitempty"` // YYYY-MM-DD; empty for undated (estimated) figures
	Source    string                `json:"source"`
	Basis     string                `json:"basis,omitempty"` // why it is an estimate, or how it was derived
}

// MIGProfile is one MIG slice shape of a GPU.
type MIGProfile struct {
	Profile         string  `json:"profile"`
	ComputeSevenths int     `json:"compute_sevenths"`
	MemoryGB        float64 `json:"memory_gb"`
	MaxPerGPU       int     `json:"max_per_gpu"`
}

// GPU is a GPU model.
type GPU struct {
	Key            string  `json:"key"`
	Name           string  `json:"name"`
	Vendor         string  `json:"vendor"`
	MemoryGiB      float64 `json:"memory_gib"`
	ReportedMiB    int     `json:"reported_mib"`
	ReportedSource string  `json:"reported_source"`
	// ComputeMajor and ComputeMinor are an NVIDIA GPU's CUDA compute capability (8.9 for an L4),
	// 0 for other makers' accelerators.
	ComputeMajor int          `json:"compute_major,omitempty"`
	ComputeMinor int          `json:"compute_minor,omitempty"`
	MIG          []MIGProfile `json:"mig,omitempty"`
}

// UsableGiB is the memory a workload can plan against: the total nvidia-smi reports.
func (g GPU) UsableGiB() float64 { return float64(g.ReportedMiB) / 1024 }

// Catalog is a loaded set of tables. It is immutable once built; WithOverlay returns a new one.
type Catalog struct {
	instances map[string]Instance // provider|type (lower case)
	prices    map[string]Price    // provider|type|region|option (lower case)
	regions   map[string][]string // provider|type -> regions with an on-demand price
	// lists are the sorted instance lists by provider ("" for all), GPU instances only
	// (gpu|provider) or every kind (all|provider), made once: the recommender walks a
	// provider's list for every resource with a profile.
	lists   map[string][]Instance
	gpus    map[string]GPU
	updated string
	sources []string
	// nearestFallback prices a region without a price at the nearest priced region's rate,
	// marked an estimate (WithNearestRegionFallback).
	nearestFallback bool
}

func ikey(provider, typ string) string { return provider + "|" + strings.ToLower(typ) }
func pkey(provider, typ, region string, opt parser.PurchaseOption) string {
	return provider + "|" + strings.ToLower(typ) + "|" + parser.NormalizeRegion(region) + "|" + string(opt)
}

var (
	defaultOnce sync.Once
	defaultCat  *Catalog
	defaultErr  error
)

// Default returns the embedded catalog, loaded once.
func Default() (*Catalog, error) {
	defaultOnce.Do(func() {
		open := func(n string) io.Reader {
			f, err := dataFS.Open("data/" + n)
			if err != nil {
				panic(err) // embedded at build time: cannot be missing
			}
			return f
		}
		defaultCat, defaultErr = Load(open("instances.csv"), open("prices.csv"), open("gpus.csv"), open("mig.csv"))
	})
	return defaultCat, defaultErr
}

// MustDefault is Default for tests and tools; the embedded data is checked by tests.
func MustDefault() *Catalog {
	c, err := Default()
	if err != nil {
		panic(err)
	}
	return c
}

// Load reads the four tables.
func Load(instances, prices, gpus, mig io.Reader) (*Catalog, error) {
	c := &Catalog{instances: map[string]Instance{}, prices: map[string]Price{}, regions: map[string][]string{}, gpus: map[string]GPU{}}
	if err := readTable("gpus.csv", gpus, func(r record) error {
		g := GPU{Key: r.s("gpu"), Name: r.s("name"), Vendor: r.s("vendor"), ReportedSource: r.s("reported_source")}
		var err error
		if g.MemoryGiB, err = r.f("memory_gib"); err != nil {
			return err
		}
		mib, err := r.f("reported_mib")
		g.ReportedMiB = int(mib)
		if cc := r.raw("compute_capability"); cc != "" && err == nil {
			g.ComputeMajor, g.ComputeMinor, err = computeCapability(cc)
		}
		c.gpus[g.Key] = g
		return err
	}); err != nil {
		return nil, err
	}
	if err := readTable("mig.csv", mig, func(r record) error {
		g, ok := c.gpus[r.s("gpu")]
		if !ok {
			return fmt.Errorf("unknown gpu %q", r.s("gpu"))
		}
		p := MIGProfile{Profile: r.s("profile")}
		cs, err1 := r.f("compute_sevenths")
		mem, err2 := r.f("memory_gb")
		max, err3 := r.f("max_per_gpu")
		if err := firstErr(err1, err2, err3); err != nil {
			return err
		}
		p.ComputeSevenths, p.MemoryGB, p.MaxPerGPU = int(cs), mem, int(max)
		g.MIG = append(g.MIG, p)
		c.gpus[g.Key] = g
		return nil
	}); err != nil {
		return nil, err
	}
	if err := readTable("instances.csv", instances, func(r record) error {
		in := Instance{Provider: r.s("provider"), Type: r.s("instance_type"), Kind: r.s("kind"), GPU: r.s("gpu")}
		var err error
		if in.GPUCount, err = r.f("gpu_count"); err != nil {
			return err
		}
		in.GPUMemoryGiB, _ = r.fOpt("gpu_memory_gib")
		v, _ := r.fOpt("vcpu")
		in.VCPU = int(v)
		in.MemoryGiB, _ = r.fOpt("memory_gib")
		if in.GPU != "" {
			if _, ok := c.gpus[in.GPU]; !ok {
				return fmt.Errorf("%s: unknown gpu %q", in.Type, in.GPU)
			}
		}
		c.instances[ikey(in.Provider, in.Type)] = in
		return nil
	}); err != nil {
		return nil, err
	}
	var rows []Price
	if err := readTable("prices.csv", prices, func(r record) error {
		p, err := priceFromRecord(r)
		rows = append(rows, p)
		return err
	}); err != nil {
		return nil, err
	}
	for _, p := range rows {
		c.addPrice(p)
	}
	c.index()
	return c, nil
}

func priceFromRecord(r record) (Price, error) {
	p := Price{Provider: r.intern("provider"), Type: r.intern("instance_type"), Region: r.intern("region"),
		Option: parser.PurchaseOption(r.intern("purchase_option")), Date: r.intern("date"), Source: r.intern("source"), Basis: r.intern("basis")}
	if strings.ContainsAny(p.Region, " ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		p.Region = parser.NormalizeRegion(p.Region)
	}
	var err error
	if p.Hourly, err = money.Parse(r.raw("usd_per_hour")); err != nil {
		return p, fmt.Errorf("usd_per_hour: %w", err)
	}
	p.Estimated = r.raw("estimated") == "true"
	return p, p.validate()
}

func (p Price) validate() error {
	switch {
	case p.Provider != parser.AWS && p.Provider != parser.GCP && p.Provider != parser.Azure:
		return fmt.Errorf("unknown provider %q", p.Provider)
	case p.Type == "" || p.Region == "":
		return fmt.Errorf("instance_type and region are required")
	case !validOption(p.Option):
		return fmt.Errorf("unknown purchase_option %q", p.Option)
	case p.Hourly <= 0:
		return fmt.Errorf("%s %s %s: price must be positive", p.Type, p.Region, p.Option)
	case p.Source == "":
		return fmt.Errorf("%s %s %s: every price needs a source", p.Type, p.Region, p.Option)
	case p.Date == "" && !p.Estimated:
		return fmt.Errorf("%s %s %s: a price without a date must be marked estimated", p.Type, p.Region, p.Option)
	}
	return nil
}

func validOption(o parser.PurchaseOption) bool {
	for _, x := range parser.PurchaseOptions {
		if o == x {
			return true
		}
	}
	return false
}

func (c *Catalog) addPrice(p Price) {
	c.prices[pkey(p.Provider, p.Type, p.Region, p.Option)] = p
}

// index rebuilds the derived lookups: regions per type, newest date, sources.
func (c *Catalog) index() {
	c.lists = map[string][]Instance{}
	providers := map[string]bool{"": true}
	for _, in := range c.instances {
		providers[in.Provider] = true
	}
	for provider := range providers {
		c.lists["gpu|"+provider] = c.listInstances(provider, true)
		c.lists["all|"+provider] = c.listInstances(provider, false)
	}
	c.regions = map[string][]string{}
	srcs := map[string]bool{}
	c.updated = ""
	for _, p := range c.prices {
		if p.Option == parser.OnDemand {
			k := ikey(p.Provider, p.Type)
			c.regions[k] = append(c.regions[k], p.Region)
		}
		if p.Date > c.updated {
			c.updated = p.Date
		}
		srcs[p.Source] = true
	}
	for k := range c.regions {
		sort.Strings(c.regions[k])
	}
	c.sources = c.sources[:0]
	for s := range srcs {
		c.sources = append(c.sources, s)
	}
	sort.Strings(c.sources)
}

// WithOverlay returns a catalog where the overlay's rows replace rows of the same provider,
// region, type and purchase option, and add the rest.
func (c *Catalog) WithOverlay(rows []Price) (*Catalog, error) {
	n := &Catalog{instances: c.instances, prices: make(map[string]Price, len(c.prices)+len(rows)), gpus: c.gpus}
	for k, p := range c.prices {
		n.prices[k] = p
	}
	for i, p := range rows {
		p.Region = parser.NormalizeRegion(p.Region)
		if err := p.validate(); err != nil {
			return nil, fmt.Errorf("overlay row %d: %w", i+1, err)
		}
		n.addPrice(p)
	}
	n.index()
	return n, nil
}

// WithNearestRegionFallback returns a catalog that prices a type in a region it has no price
// for at the nearest region's rate (same continent first), marked an estimate that says so,
// instead of leaving it unpriced. Regional GPU prices differ, so this is opt-in: the config's
// region_fallback: nearest.
func (c *Catalog) WithNearestRegionFallback() *Catalog {
	n := *c
	n.nearestFallback = true
	return &n
}

// NearestRegionFallback reports whether the catalog prices a missing region at the nearest
// one's rate (WithNearestRegionFallback).
func (c *Catalog) NearestRegionFallback() bool { return c.nearestFallback }

// Updated is the newest date of any price in the catalog.
func (c *Catalog) Updated() string { return c.updated }

// StaleAfterDays is the age past which reports say the catalog's prices may have changed: cloud
// GPU prices move several times a year (AWS cut P4 and P5 on-demand prices by up to 45% in June
// 2025).
const StaleAfterDays = 90

// AgeDays is how many whole days lie between Updated and now, and false when the catalog has no
// dated price.
func (c *Catalog) AgeDays(now time.Time) (int, bool) {
	t, err := time.Parse(time.DateOnly, c.updated)
	if err != nil {
		return 0, false
	}
	y, m, d := now.UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return max(0, int(today.Sub(t).Hours()/24)), true
}

// Sources lists every source the catalog's prices come from.
func (c *Catalog) Sources() []string { return append([]string(nil), c.sources...) }

// Instance looks up an instance type (case-insensitive).
func (c *Catalog) Instance(provider, typ string) (Instance, bool) {
	in, ok := c.instances[ikey(provider, typ)]
	return in, ok
}

// GPU looks up a GPU model by key.
func (c *Catalog) GPU(key string) (GPU, bool) {
	g, ok := c.gpus[key]
	return g, ok
}

// GPUs lists every GPU model, by key.
func (c *Catalog) GPUs() []GPU {
	out := make([]GPU, 0, len(c.gpus))
	for _, g := range c.gpus {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Price returns the price row for exactly this type, region and option.
func (c *Catalog) Price(provider, typ, region string, opt parser.PurchaseOption) (Price, bool) {
	p, ok := c.prices[pkey(provider, typ, region, opt)]
	return p, ok
}

// Regions lists the regions where a type has an on-demand price.
func (c *Catalog) Regions(provider, typ string) []string {
	return c.regions[ikey(provider, typ)]
}

// Instances lists the instance types of a provider (all providers when empty) with GPUs
// included, sorted by provider and type. The list is shared: callers must not modify it.
func (c *Catalog) Instances(provider string) []Instance {
	return c.lists["gpu|"+provider]
}

// AllInstances lists every type of a provider, GPU instances, CPU VMs (GCP N1) and attachable
// accelerators alike, sorted. The list is shared: callers must not modify it.
func (c *Catalog) AllInstances(provider string) []Instance {
	return c.lists["all|"+provider]
}

func (c *Catalog) listInstances(provider string, gpuOnly bool) []Instance {
	var out []Instance
	for _, in := range c.instances {
		if (provider == "" || in.Provider == provider) && (!gpuOnly || in.Kind == KindInstance) {
			out = append(out, in)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Provider != out[j].Provider {
			return out[i].Provider < out[j].Provider
		}
		return out[i].Type < out[j].Type
	})
	return out
}

// Prices lists every price row, filtered by provider, GPU key and region when they are set.
func (c *Catalog) Prices(provider, gpu, region string) []Price {
	var out []Price
	region = parser.NormalizeRegion(region)
	for _, p := range c.prices {
		if provider != "" && p.Provider != provider || region != "" && p.Region != region {
			continue
		}
		if gpu != "" {
			in, ok := c.Instance(p.Provider, p.Type)
			if !ok || in.GPU != gpu {
				continue
			}
		}
		out = append(out, p)
	}
	SortPrices(out)
	return out
}

// SortPrices orders rows by provider, instance type, region and purchase option (the order of
// parser.PurchaseOptions), the order listings and overlays are written in.
func SortPrices(rows []Price) {
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Provider != b.Provider {
			return a.Provider < b.Provider
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		if a.Region != b.Region {
			return a.Region < b.Region
		}
		return optionRank(a.Option) < optionRank(b.Option)
	})
}

func optionRank(o parser.PurchaseOption) int {
	for i, x := range parser.PurchaseOptions {
		if x == o {
			return i
		}
	}
	return len(parser.PurchaseOptions)
}

// record is one CSV row by column name. The row is reused between records: keep values with
// s (a copy) or intern, never by slicing.
type record struct {
	table string
	line  int
	cols  map[string]int
	row   []string
	strs  map[string]string
}

// intern returns a column's value, sharing one string among rows that repeat it (sources,
// regions, dates repeat thousands of times in prices.csv).
func (r record) intern(col string) string {
	v := r.raw(col)
	if s, ok := r.strs[v]; ok {
		return s
	}
	s := strings.Clone(v)
	r.strs[s] = s
	return s
}

func (r record) raw(col string) string {
	if i, ok := r.cols[col]; ok && i < len(r.row) {
		return strings.TrimSpace(r.row[i])
	}
	return ""
}

func (r record) s(col string) string { return strings.Clone(r.raw(col)) }

func (r record) f(col string) (float64, error) {
	v, err := strconv.ParseFloat(r.raw(col), 64)
	if err != nil {
		return 0, fmt.Errorf("column %s: %q is not a number", col, r.raw(col))
	}
	return v, nil
}

func (r record) fOpt(col string) (float64, bool) {
	v, err := strconv.ParseFloat(r.raw(col), 64)
	return v, err == nil
}

func readTable(name string, rd io.Reader, each func(record) error) error {
	cr := csv.NewReader(rd)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	cols := map[string]int{}
	for i, h := range header {
		cols[strings.TrimSpace(h)] = i
	}
	strs := map[string]string{}
	for {
		row, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		// The record's own line: a quoted field may span several.
		line, _ := cr.FieldPos(0)
		if err := each(record{table: name, line: line, cols: cols, row: row, strs: strs}); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
