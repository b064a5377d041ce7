package helm

import (
	"archive/tar"
	"bytes"
	"cmp"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/internal/tree"
)

// Limits on one chart's rendering.
const (
	maxFile     = 4 << 20  // a chart file read
	maxOutput   = 16 << 20 // all rendered output
	maxCalls    = 100000   // include and tpl calls
	maxDepth    = 64       // include and tpl nesting
	maxList     = 100000   // a list made by until, untilStep or repeat
	maxSubchart = 32       // subchart nesting
	maxChart    = 64 << 20 // a chart's files, subcharts and archives unpacked included
)

// ParseValues reads a values file's text.
func ParseValues(data []byte) (map[string]any, error) {
	var v map[string]any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v == nil {
		v = map[string]any{}
	}
	return normalize(v).(map[string]any), nil
}

// MergeValues merges values documents in order, as `helm install -f a -f b --set ...` does over
// a chart's own values: maps merge key by key, anything else is replaced, a null removes the
// key. It is for a chart gpuguard does not render, whose values it reads for what they
// configure (the device plugin's sharing configs); the documents are not changed.
func MergeValues(docs ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, d := range docs {
		out = mergeInto(out, tree.CopyMap(normalize(d).(map[string]any)), coalesce)
	}
	return out
}

// ReleaseName is the release name templates see, as `helm template` uses without one.
const ReleaseName = "release-name"

// Rendered is one rendered template: its file and what it produced.
type Rendered struct {
	Template string // the template file, as a path under the checked directories
	Data     []byte
}

// IsChart reports whether dir is a Helm chart (it has a Chart.yaml).
func IsChart(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, "Chart.yaml"))
	return err == nil && info.Mode().IsRegular()
}

// chart is one loaded chart or subchart.
type chart struct {
	dir       string
	name      string
	meta      map[string]any // Chart.yaml, with Helm's capitalized field names
	values    map[string]any
	templates map[string]string // template name (chart/templates/x.yaml) -> text
	files     map[string][]byte // other files, by path relative to the chart
	subcharts []*chart
	deps      []dependency
	library   bool
}

type dependency struct {
	Name       string `yaml:"name"`
	Alias      string `yaml:"alias"`
	Condition  string `yaml:"condition"`
	Repository string `yaml:"repository"`
	Version    string `yaml:"version"`
}

// Missing is a dependency Chart.yaml lists, enabled by the values, that is not among the
// chart's subcharts (charts/ holds it once `helm dependency build` has run): what it would
// render is not there to count.
type Missing struct {
	Chart      string // the directory of the chart that lists it
	Name       string
	Repository string
	Version    string
}

// Chart is a rendered chart: its templates' output and the dependencies it could not render.
type Chart struct {
	Rendered []Rendered
	Missing  []Missing
}

// Timeout bounds one chart's rendering. Go templates bound how deep a template may call
// itself, not how often: a template that calls itself twice would run for ever. The rendering
// is abandoned after Timeout (its goroutine ends with the process).
var Timeout = 10 * time.Second

// Render renders the chart in dir with its values.yaml and then each of overrides over it, in
// order, as `helm template -f` does (maps merge key by key; anything else is replaced). It
// returns every rendered template that is not a partial (_*.tpl) or NOTES.txt, in name order.
func Render(dir string, links confine.Dirs, overrides ...map[string]any) ([]Rendered, error) {
	c, err := RenderChart(dir, links, overrides...)
	return c.Rendered, err
}

// RenderChart is Render, and also says which enabled dependencies are missing from charts/.
func RenderChart(dir string, links confine.Dirs, overrides ...map[string]any) (Chart, error) {
	return RenderRelease(dir, links, Release{}, overrides...)
}

// Release names the release templates see (.Release.Name, .Release.Namespace); empty fields
// are helm template's defaults (release-name, default).
type Release struct {
	Name, Namespace string
	// Defaults, when not nil, are the chart's own values in place of its values.yaml, as Flux's
	// source-controller packages a chart whose HelmChart lists valuesFiles (subcharts keep
	// theirs). https://fluxcd.io/flux/components/source/helmcharts/#values-files
	Defaults map[string]any
}

// RenderRelease is RenderChart for a named release (a Terraform helm_release).
func RenderRelease(dir string, links confine.Dirs, rel Release, overrides ...map[string]any) (Chart, error) {
	c, err := load(dir, links, 0)
	if err != nil {
		return Chart{}, err
	}
	if rel.Defaults != nil {
		c.values = tree.CopyMap(normalize(rel.Defaults).(map[string]any))
	}
	for _, o := range overrides {
		c.values = mergeInto(c.values, tree.CopyMap(normalize(o).(map[string]any)), coalesce)
	}
	return within(Timeout, fmt.Errorf("rendering took longer than %s and was stopped", Timeout), func() (Chart, error) {
		r := &renderer{links: links, release: rel}
		out, err := r.render(c)
		return Chart{Rendered: out, Missing: r.missing}, err
	})
}

// within runs f, a rendering, on its own goroutine and returns what it returns, or late when it
// has not returned after d (its goroutine then ends with the process: text/template cannot be
// interrupted). A panic in f is an error, not a crash.
func within[T any](d time.Duration, late error, f func() (T, error)) (T, error) {
	type result struct {
		out T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("internal error while rendering (please report it): %v", p)}
			}
		}()
		out, err := f()
		done <- result{out, err}
	}()
	select {
	case res := <-done:
		return res.out, res.err
	case <-time.After(d):
		var zero T
		return zero, late
	}
}

func readFile(links confine.Dirs, p string) ([]byte, error) {
	return links.ReadFile(p, maxFile)
}

func load(dir string, links confine.Dirs, depth int) (*chart, error) {
	tree, err := readTree(dir, links)
	if err != nil {
		return nil, err
	}
	if rules, ok := tree[".helmignore"]; ok {
		ignore := parseIgnore(rules)
		for rel := range tree {
			if ignore.matches(rel) {
				delete(tree, rel)
			}
		}
	}
	return fromFiles(dir, tree, depth)
}

// ignoreRules are a .helmignore's patterns: what helm package leaves out of a chart (and so
// out of .Files and the templates). A pattern matches a path's base name, or with a slash the
// path from the chart's root; a trailing slash matches a directory; "!" takes a path back.
type ignoreRules []ignoreRule

type ignoreRule struct {
	pattern string
	dir     bool
	negate  bool
}

func parseIgnore(data []byte) ignoreRules {
	var rules ignoreRules
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{}
		if r.negate = strings.HasPrefix(line, "!"); r.negate {
			line = line[1:]
		}
		if r.dir = strings.HasSuffix(line, "/"); r.dir {
			line = strings.TrimSuffix(line, "/")
		}
		r.pattern = strings.TrimPrefix(line, "/")
		rules = append(rules, r)
	}
	return rules
}

// matches reports whether the file at rel (a slash path) is ignored: the last rule that matches
// it, or one of its directories, decides.
func (rules ignoreRules) matches(rel string) bool {
	if rel == "Chart.yaml" {
		return false // helm package keeps it whatever the rules say
	}
	ignored := false
	parts := strings.Split(rel, "/")
	for _, r := range rules {
		for i := range parts {
			isDir := i < len(parts)-1
			if r.dir && !isDir {
				continue
			}
			target := parts[i]
			if strings.Contains(r.pattern, "/") {
				target = strings.Join(parts[:i+1], "/")
			}
			if ok, _ := path.Match(r.pattern, target); ok {
				ignored = !r.negate
				break
			}
		}
	}
	return ignored
}

// readTree reads a chart directory's files (hidden ones left out), by slash path relative to it.
// A file too large to read is left out, unless it is a template or the chart's own metadata.
func readTree(dir string, links confine.Dirs) (map[string][]byte, error) {
	tree := map[string][]byte{}
	total := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") && d.Name() != ".helmignore" || links.Entry(p, d.Type()) != confine.Read {
			return nil
		}
		data, err := readFile(links, p)
		if err != nil {
			if essential(rel) {
				return err
			}
			return nil
		}
		if total += len(data); total > maxChart {
			return fmt.Errorf("the chart is larger than %d bytes", maxChart)
		}
		tree[rel] = data
		return nil
	})
	return tree, err
}

// essential reports whether a chart file must be read for the chart to render right.
func essential(rel string) bool {
	base := path.Base(rel)
	return base == "Chart.yaml" || base == "values.yaml" || strings.Contains("/"+rel, "/templates/") || strings.HasSuffix(rel, ".tgz")
}

// fromFiles makes a chart of its files (slash paths relative to the chart), its subcharts
// among them: directories under charts/, and packaged ones (charts/*.tgz), as helm dependency
// build leaves them. dir names the chart in messages and rendered paths.
func fromFiles(dir string, tree map[string][]byte, depth int) (*chart, error) {
	if depth > maxSubchart {
		return nil, fmt.Errorf("subcharts nested more than %d deep", maxSubchart)
	}
	raw, ok := tree["Chart.yaml"]
	if !ok {
		return nil, fmt.Errorf("%s: no Chart.yaml", dir)
	}
	var file struct {
		Name         string       `yaml:"name"`
		Version      string       `yaml:"version"`
		AppVersion   string       `yaml:"appVersion"`
		Description  string       `yaml:"description"`
		Type         string       `yaml:"type"`
		APIVersion   string       `yaml:"apiVersion"`
		Dependencies []dependency `yaml:"dependencies"`
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "Chart.yaml"), err)
	}
	meta := map[string]any{"Name": file.Name, "Version": file.Version, "AppVersion": file.AppVersion,
		"Description": file.Description, "Type": file.Type, "APIVersion": file.APIVersion}
	c := &chart{dir: dir, name: file.Name, meta: meta, values: map[string]any{}, templates: map[string]string{},
		files: map[string][]byte{}, deps: file.Dependencies, library: file.Type == "library"}
	if c.name == "" {
		c.name = filepath.Base(dir)
	}
	if raw, ok := tree["values.yaml"]; ok {
		v, err := ParseValues(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "values.yaml"), err)
		}
		c.values = v
	}
	subtrees := map[string]map[string][]byte{}
	var subOrder []string
	for rel, data := range tree {
		sub, inCharts := strings.CutPrefix(rel, "charts/")
		switch {
		case !inCharts && strings.HasPrefix(rel, "templates/"):
			c.templates[c.name+"/"+rel] = string(data)
		case !inCharts:
			c.files[rel] = data
		case !strings.Contains(sub, "/") && strings.HasSuffix(sub, ".tgz"):
			unpacked, err := untar(data)
			if err != nil {
				return nil, fmt.Errorf("subchart %s: %v", filepath.Join(dir, "charts", sub), err)
			}
			for name, files := range unpacked {
				key := sub + "/" + name
				subtrees[key] = files
				subOrder = append(subOrder, key)
			}
		case strings.Contains(sub, "/"):
			name, rest, _ := strings.Cut(sub, "/")
			if subtrees[name] == nil {
				subtrees[name] = map[string][]byte{}
				subOrder = append(subOrder, name)
			}
			subtrees[name][rest] = data
		}
	}
	sort.Strings(subOrder)
	for _, key := range subOrder {
		if _, ok := subtrees[key]["Chart.yaml"]; !ok {
			continue // a directory under charts/ that is no chart
		}
		sc, err := fromFiles(filepath.Join(dir, "charts", filepath.FromSlash(key)), subtrees[key], depth+1)
		if err != nil {
			return nil, err
		}
		c.subcharts = append(c.subcharts, sc)
	}
	sort.SliceStable(c.subcharts, func(i, j int) bool { return c.subcharts[i].name < c.subcharts[j].name })
	return c, nil
}

// untar reads a packaged chart (a gzipped tar whose entries sit under the chart's directory)
// into its charts' files, by top directory. Only regular files are read, paths stay inside,
// and the unpacked size is bounded.
func untar(data []byte) (map[string]map[string][]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(io.LimitReader(zr, maxChart))
	out := map[string]map[string][]byte{}
	total := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "/"))
		if name == "." || strings.HasPrefix(name, "../") || name == ".." {
			continue
		}
		top, rest, ok := strings.Cut(name, "/")
		if !ok || rest == "" {
			continue
		}
		if total += int(h.Size); h.Size > maxFile || total > maxChart {
			return nil, fmt.Errorf("the archive unpacks to more than %d bytes", maxChart)
		}
		b, err := io.ReadAll(io.LimitReader(tr, maxFile))
		if err != nil {
			return nil, err
		}
		if out[top] == nil {
			out[top] = map[string][]byte{}
		}
		out[top][rest] = b
	}
}

// normalize turns yaml.v3's map[string]any trees into what Helm's templates see: maps with
// string keys all the way down, and every number a float64, as Helm reads values through JSON
// (so kindIs "float64" and the printing of large numbers behave as in Helm).
func normalize(v any) any {
	switch t := v.(type) {
	case int:
		return float64(t)
	case int64:
		return float64(t)
	case uint64:
		return float64(t)
	case map[string]any:
		for k, x := range t {
			t[k] = normalize(x)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[fmt.Sprint(k)] = normalize(x)
		}
		return m
	case []any:
		for i, x := range t {
			t[i] = normalize(x)
		}
		return t
	}
	return v
}

// renderer renders one chart and its subcharts, sharing one template set as Helm does.
type renderer struct {
	links    confine.Dirs
	release  Release
	set      *template.Template
	calls    int
	depth    int
	out      int
	produced int // what the functions returned, in bytes and elements (maxProduced)
	missing  []Missing
}

// scoped is a chart with the values it renders with.
type scoped struct {
	c      *chart
	values map[string]any
}

func (r *renderer) render(top *chart) ([]Rendered, error) {
	charts := r.scope(top, top.values, 0)
	r.set = template.New("gotpl").Option("missingkey=zero")
	r.set.Funcs(r.funcs())
	var names []string
	tmplOf := map[string]scoped{}
	for _, s := range charts {
		for name, text := range s.c.templates {
			if _, err := r.set.New(name).Parse(text); err != nil {
				return nil, err
			}
			names = append(names, name)
			tmplOf[name] = s
		}
	}
	sort.Strings(names)
	var out []Rendered
	for _, name := range names {
		base := path.Base(name)
		if strings.HasPrefix(base, "_") || strings.EqualFold(base, "NOTES.txt") || tmplOf[name].c.library {
			continue
		}
		if ext := path.Ext(base); ext != ".yaml" && ext != ".yml" && ext != ".tpl" && ext != ".json" {
			continue
		}
		s := tmplOf[name]
		var buf bytes.Buffer
		if err := r.set.ExecuteTemplate(&limited{w: &buf, r: r}, name, r.context(s, name)); err != nil {
			return nil, shortCallChain(err)
		}
		if len(bytes.TrimSpace(buf.Bytes())) == 0 {
			continue
		}
		out = append(out, Rendered{Template: filepath.Join(s.c.dir, filepath.FromSlash(strings.TrimPrefix(name, s.c.name+"/"))), Data: buf.Bytes()})
	}
	return out, nil
}

// scope lists a chart and its enabled subcharts with the values each renders with: a
// subchart's own values, overridden by the parent's values under its name, and the globals.
func (r *renderer) scope(c *chart, values map[string]any, depth int) []scoped {
	out := []scoped{{c: c, values: values}}
	global, _ := values["global"].(map[string]any)
	for _, d := range c.deps {
		present := false
		for _, sc := range c.subcharts {
			present = present || sc.name == d.Name
		}
		if !present && (d.Condition == "" || conditionTrue(values, d.Condition)) {
			r.missing = append(r.missing, Missing{Chart: c.dir, Name: d.Name, Repository: d.Repository, Version: d.Version})
		}
	}
	for _, sc := range c.subcharts {
		name := sc.name
		var dep *dependency
		for i := range c.deps {
			if c.deps[i].Name == sc.name {
				dep = &c.deps[i]
				if dep.Alias != "" {
					name = dep.Alias
				}
			}
		}
		if dep != nil && dep.Condition != "" && !conditionTrue(values, dep.Condition) {
			continue
		}
		sub := tree.CopyMap(sc.values)
		if own, ok := values[name].(map[string]any); ok {
			sub = mergeInto(sub, tree.CopyMap(own), coalesce)
		}
		if global != nil {
			g, _ := sub["global"].(map[string]any)
			sub["global"] = mergeInto(tree.CopyMap(g), tree.CopyMap(global), coalesce)
		}
		out = append(out, r.scope(sc, sub, depth+1)...)
	}
	return out
}

// conditionTrue reads a dependency condition (comma-separated value paths; the first that
// exists decides; none existing means enabled).
func conditionTrue(values map[string]any, cond string) bool {
	for _, p := range strings.Split(cond, ",") {
		var v any = values
		found := true
		for _, k := range strings.Split(strings.TrimSpace(p), ".") {
			m, ok := v.(map[string]any)
			if !ok {
				found = false
				break
			}
			if v, ok = m[k]; !ok {
				found = false
				break
			}
		}
		if found {
			if b, ok := v.(bool); ok {
				return b
			}
		}
	}
	return true
}

// context is the top-level object a template sees.
func (r *renderer) context(s scoped, name string) map[string]any {
	return map[string]any{
		"Values": s.values,
		"Release": map[string]any{"Name": cmp.Or(r.release.Name, ReleaseName), "Namespace": cmp.Or(r.release.Namespace, "default"),
			"Service": "Helm", "IsInstall": true, "IsUpgrade": false, "Revision": 1},
		"Chart":        s.c.meta,
		"Capabilities": capabilities,
		"Template":     map[string]any{"Name": name, "BasePath": s.c.name + "/templates"},
		"Files":        files(s.c.files),
	}
}

// limited fails a rendering that writes more than maxOutput in all.
type limited struct {
	w *bytes.Buffer
	r *renderer
}

func (l *limited) Write(p []byte) (int, error) {
	l.r.out += len(p)
	if l.r.out > maxOutput {
		return 0, fmt.Errorf("the chart renders more than %d bytes", maxOutput)
	}
	return l.w.Write(p)
}

// callLink is how text/template joins the error of a template called through include or tpl to
// the call's place.
var callLink = regexp.MustCompile(`error calling (?:include|tpl): `)

// shortCallChain shortens the error of a template that failed deep in nested include or tpl
// calls: text/template repeats each call's place, so a recursion that hit the depth limit reads
// as 64 near-identical lines. It keeps the outermost place, the innermost one and the cause.
func shortCallChain(err error) error {
	msg := err.Error()
	links := callLink.FindAllStringIndex(msg, -1)
	if len(links) <= 2 {
		return err
	}
	first, last, prev := links[0], links[len(links)-1], links[len(links)-2]
	return fmt.Errorf("%s… %s (through %d nested calls)", msg[:first[1]], msg[prev[1]:last[0]]+msg[last[1]:], len(links))
}
