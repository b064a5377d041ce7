package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/internal/yamlpos"
)

// FileNames are the names a config file may have, in the order they are looked for.
var FileNames = []string{".gpuguard.yaml", ".gpuguard.yml"}

// Budgets are the spend limits GPU001 checks.
type Budgets struct {
	MonthlyTotal       *float64 `yaml:"monthly_total" json:"monthly_total"`
	MonthlyIncrease    *float64 `yaml:"monthly_increase" json:"monthly_increase"`
	PerResourceMonthly *float64 `yaml:"per_resource_monthly" json:"per_resource_monthly"`
	// MonthlyTotalAtMax and PerResourceMonthlyAtMax hold the same lines with every autoscaled
	// resource at its declared maximum (max_size, max_count, maxReplicas).
	MonthlyTotalAtMax       *float64 `yaml:"monthly_total_at_max" json:"monthly_total_at_max"`
	PerResourceMonthlyAtMax *float64 `yaml:"per_resource_monthly_at_max" json:"per_resource_monthly_at_max"`
}

// Usage says how many hours a month matching resources run.
type Usage struct {
	HoursPerMonth float64 `yaml:"hours_per_month" json:"hours_per_month"`
}

// Kubernetes holds settings for manifests that do not name their node.
type Kubernetes struct {
	DefaultInstanceType string `yaml:"default_instance_type" json:"default_instance_type,omitempty"`
	// DaemonSetNodes is how many nodes a DaemonSet's selector matches (default 1, with a note).
	DaemonSetNodes map[string]int `yaml:"daemonset_nodes" json:"daemonset_nodes,omitempty"`
	// HelmValues are the values files a chart is rendered with, in order over its values.yaml
	// (as helm template -f a -f b): chart directory → files, both relative to the project root.
	HelmValues map[string][]string `yaml:"helm_values" json:"helm_values,omitempty"`
}

// HelmValueFiles resolves kubernetes.helm_values: absolute chart directories to absolute
// values files, every file inside the project (ResolveInside).
func (c *Config) HelmValueFiles() (map[string][]string, error) {
	if len(c.Kubernetes.HelmValues) == 0 {
		return nil, nil
	}
	out := map[string][]string{}
	for chart, files := range c.Kubernetes.HelmValues {
		dir, err := filepath.Abs(c.Resolve(chart))
		if err != nil {
			return nil, err
		}
		for i, f := range files {
			full, err := c.ResolveInside(fmt.Sprintf("kubernetes.helm_values.%s.%d", chart, i), f)
			if err != nil {
				return nil, err
			}
			if full, err = filepath.Abs(full); err != nil {
				return nil, err
			}
			out[filepath.Clean(dir)] = append(out[filepath.Clean(dir)], full)
		}
	}
	return out, nil
}

// Config is the decoded .gpuguard.yaml.
type Config struct {
	Region        string            `yaml:"region" json:"region,omitempty"`
	HoursPerMonth float64           `yaml:"hours_per_month" json:"hours_per_month,omitempty"`
	Budgets       Budgets           `yaml:"budgets" json:"budgets"`
	RequiredTags  []string          `yaml:"required_tags" json:"required_tags"`
	Profiles      map[string]string `yaml:"profiles" json:"profiles,omitempty"`
	Usage         map[string]Usage  `yaml:"usage" json:"usage,omitempty"`
	Policies      []string          `yaml:"policies" json:"policies,omitempty"`
	PolicyData    map[string]any    `yaml:"policy_data" json:"policy_data"`
	Kubernetes    Kubernetes        `yaml:"kubernetes" json:"kubernetes"`
	Catalog       string            `yaml:"catalog" json:"catalog,omitempty"`
	// RegionFallback "nearest" prices a region the catalog has no price for at the nearest
	// priced region's rate, marked an estimate; "none" (the default) leaves it unpriced.
	RegionFallback string `yaml:"region_fallback" json:"region_fallback,omitempty"`

	// Path is the file the config was read from; empty for the defaults.
	Path string `yaml:"-" json:"-"`
	// Root is the project root: the config's directory, else the git root, else the working
	// directory. Paths in the config and in profile tags are relative to it.
	Root string `yaml:"-" json:"-"`
	// Repo is the git repository's root around Root, when there is one: files the config names
	// may also lie there (a config in a subdirectory naming ../profiles).
	Repo string `yaml:"-" json:"-"`
	// lines holds the line of each key of the file, dotted ("budgets.monthly_increase").
	lines yamlpos.Lines
}

// Line returns the line of a dotted key in the config file ("budgets.monthly_increase"), or
// the line of its nearest enclosing key that is there, or 0 without a file.
func (c *Config) Line(key string) int { return c.lines.At(key) }

// Error is a config problem with its place.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Find looks for a config file in start's directory and upward. It returns "" when there is none.
func Find(start string) string {
	dir := start
	if info, err := os.Stat(start); err == nil && !info.IsDir() {
		dir = filepath.Dir(start)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		for _, n := range FileNames {
			p := filepath.Join(dir, n)
			if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
				return p
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Load reads a config file. An empty path returns the defaults with the root found from start.
func Load(path, start string) (*Config, error) {
	c := &Config{}
	if path == "" {
		c.Root = projectRoot(start)
		c.Repo = gitRoot(c.Root)
		return c, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read config: %v", err)}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read config: %v", err)}
	}
	if err := Parse(data, path, c); err != nil {
		return nil, err
	}
	c.Path = path
	c.Root = filepath.Dir(path)
	c.Repo = gitRoot(c.Root)
	return c, nil
}

// Parse decodes config YAML strictly into c.
func Parse(data []byte, name string, c *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		e := yamlError(name, err)
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			var note string
			e.Line, note = yamlpos.Relocate(data, e.Line, 0)
			e.Msg += note
		}
		return e
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil {
		c.lines = yamlpos.Index(&doc)
	}
	return c.validate(name)
}

func yamlError(name string, err error) *Error {
	// "line 3: field regoin not found in type config.Config"
	line, msg := yamlpos.Split(err)
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msg = strings.ReplaceAll(msg, " in type config.Config", "")
		msg = strings.ReplaceAll(msg, " into config.Config", " as the config (a mapping of settings)")
		msg = strings.ReplaceAll(msg, "field ", "unknown field ")
		msg = strings.ReplaceAll(msg, " not found", "")
	}
	return &Error{File: name, Line: line, Msg: msg}
}

func (c *Config) validate(name string) error {
	if c.HoursPerMonth < 0 || c.HoursPerMonth > 744 {
		return &Error{File: name, Msg: fmt.Sprintf("hours_per_month must be between 0 and 744, got %g", c.HoursPerMonth)}
	}
	for k, u := range c.Usage {
		if u.HoursPerMonth < 0 || u.HoursPerMonth > 744 {
			return &Error{File: name, Msg: fmt.Sprintf("usage %q: hours_per_month must be between 0 and 744, got %g", k, u.HoursPerMonth)}
		}
	}
	if c.RegionFallback != "" && c.RegionFallback != "none" && c.RegionFallback != "nearest" {
		return &Error{File: name, Line: c.Line("region_fallback"), Msg: fmt.Sprintf("region_fallback must be none or nearest, got %q", c.RegionFallback)}
	}
	for _, b := range []*float64{c.Budgets.MonthlyTotal, c.Budgets.MonthlyIncrease, c.Budgets.PerResourceMonthly, c.Budgets.MonthlyTotalAtMax, c.Budgets.PerResourceMonthlyAtMax} {
		if b != nil && *b < 0 {
			return &Error{File: name, Msg: "budgets must not be negative"}
		}
	}
	return nil
}

// Resolve makes a config-relative path absolute against the project root.
func (c *Config) Resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Root, p)
}

// ResolveInside resolves a path the config names (catalog, policies) and refuses one whose real
// location, symlinks followed, is outside the config's directory and its git repository: a
// pull request's config must not make gpuguard read the runner's files. key is the setting,
// for the error's line.
func (c *Config) ResolveInside(key, p string) (string, error) {
	full := c.Resolve(p)
	if _, err := confine.NewDirs(c.Root, c.Repo).Resolve(full); err != nil {
		var outside *confine.OutsideError
		if errors.As(err, &outside) {
			return "", &Error{File: c.Path, Line: c.Line(key), Msg: fmt.Sprintf("%s: %v", key, err)}
		}
	}
	return full, nil
}

// projectRoot is the git repository's root above start, else the working directory.
func projectRoot(start string) string {
	dir := start
	if info, err := os.Stat(start); err == nil && !info.IsDir() {
		dir = filepath.Dir(start)
	}
	if root := gitRoot(dir); root != "" {
		return root
	}
	wd, _ := os.Getwd()
	return wd
}

// gitRoot is the directory holding .git at or above dir, or "".
func gitRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// RequiredTagsOrDefault returns the tags GPU005 requires: the config's, else team, project and env.
func (c *Config) RequiredTagsOrDefault() []string {
	if c.RequiredTags != nil {
		return c.RequiredTags
	}
	return []string{"team", "project", "env"}
}
