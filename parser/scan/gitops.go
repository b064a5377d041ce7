package scan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/helm"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
	"github.com/gpuguard/gpuguard/parser/kustomize"
)

// maxGitOpsRounds bounds how deep Applications that render charts of Applications (Argo CD's
// app of apps) are followed.
const maxGitOpsRounds = 4

// gitOps is what the Argo CD Applications and Flux HelmReleases among the manifests render from
// charts in the repository being read: the charts' objects, as each Application's release and values make
// them, and the chart directories they consume (not rendered again with default values).
type gitOps struct {
	files    []*kubernetes.File
	consumed map[string]bool // real paths of chart, kustomization and manifest directories and files
	res      parser.Result
	seen     map[string]bool // Applications (file, owner, path) rendered
	trees    map[string][]treeEntry
	ignores  map[string]sourceIgnore // Flux's, by repository root and spec.ignore
}

// chartFiles are the objects of a chart rendered with its default values (a Helm input).
type chartFiles struct {
	dir   string
	files []*kubernetes.File
}

// renderGitSources renders, for each Argo CD Application among the manifests whose source is a
// chart directory (path, not chart), that chart as the Application does: its release name, its
// destination's namespace, its value files (relative to the chart, or after a $ref of a source
// of the same repository, to the repository's root) and its helm values, valuesObject and
// parameters over them. A Flux HelmRelease of a GitRepository's chart is rendered likewise, as
// Flux does (kubernetes.GitSource). The source's repository is taken to be the one being read when its path
// names a chart there: from the Application's directory or one above it, not past the
// repository's root (.git) or the directories gpuguard reads. A chart that is not there (another
// repository) is left alone. An Application's kustomization or plain directory, and a Flux
// Kustomization's path, are built or read likewise (gitopsdirs.go). The Applications in what they
// deploy are followed too (app of apps): those a chart rendered with its default values holds,
// when no Application renders that chart, and those of the charts, kustomizations and
// directories Applications deploy, up to maxGitOpsRounds deep. charts renders, once the first
// round is done, the charts read as inputs that nothing has consumed (real paths) with their
// default values: a chart an Application renders with its own values is not rendered so.
func renderGitSources(plain []*kubernetes.File, charts func(consumed map[string]bool) []chartFiles, opts Options) gitOps {
	g := gitOps{consumed: map[string]bool{}, seen: map[string]bool{}, trees: map[string][]treeEntry{}, ignores: map[string]sourceIgnore{}}
	next := g.round(plain, opts)
	var defaults []*kubernetes.File
	for _, c := range charts(g.consumed) {
		defaults = append(defaults, c.files...)
	}
	next = append(next, g.round(defaults, opts)...)
	for r := 1; r < maxGitOpsRounds && len(next) > 0; r++ {
		next = g.round(next, opts)
	}
	return g
}

// round renders the charts of the Applications among files and returns their objects.
func (g *gitOps) round(files []*kubernetes.File, opts Options) []*kubernetes.File {
	if len(files) == 0 {
		return nil
	}
	apps, errs, warns := kubernetes.ApplicationSetApps(files, &repoTree{opts: opts, trees: g.trees})
	g.res.Errors = append(g.res.Errors, errs...)
	g.res.Warnings = append(g.res.Warnings, warns...)
	files = append(slices.Clip(files), apps...)
	charts, errs, warns := kubernetes.GitSources(files)
	g.res.Errors = append(g.res.Errors, errs...)
	g.res.Warnings = append(g.res.Warnings, warns...)
	var out []*kubernetes.File
	for _, c := range charts {
		// The same Application may be read from two paths of one file (a walked manifest, and
		// the directory another Application deploys).
		file := realPath(c.File)
		if file == "" {
			file = c.File
		}
		key := file + "\x00" + c.Owner + "\x00" + c.Path
		if g.seen[key] {
			continue
		}
		g.seen[key] = true
		rendered := g.render(c, opts)
		g.files = append(g.files, rendered...)
		out = append(out, rendered...)
	}
	return out
}

// render renders one Application's chart, if it is in the repository being read.
func (g *gitOps) render(c kubernetes.GitSource, opts Options) []*kubernetes.File {
	at := func(format string, args ...any) parser.Error {
		return parser.Error{File: c.File, Line: c.Line, Message: address(c) + ": " + fmt.Sprintf(format, args...)}
	}
	if c.Kustomization {
		if dir := findKustomization(c.File, c.Path, opts); dir != "" {
			return g.buildAppKustomization(c, dir, opts)
		}
		return g.buildFluxDirectory(c, opts)
	}
	dir, root := findGitChart(c.File, c.Path, opts)
	if dir == "" {
		if c.Tool != "Argo CD" {
			return nil
		}
		if dir = findKustomization(c.File, c.Path, opts); dir != "" {
			return g.buildAppKustomization(c, dir, opts)
		}
		return g.readDirectory(c, opts)
	}
	g.consumed[realPath(dir)] = true
	var overrides []map[string]any
	var names []string
	for _, vf := range c.ValueFiles {
		base := dir
		switch {
		case c.ValueFilesAtRoot && strings.Contains(vf.Path, "://"):
			g.res.Errors = append(g.res.Errors, at("value file %s is not a path in the repository: %s cannot render the chart, and what it deploys is not counted", vf.Path, c.Tool))
			return nil
		case c.ValueFilesAtRoot:
			base = root
		case strings.Contains(vf.Path, "://"):
			g.res.Warnings = append(g.res.Warnings, at("value file %s is not in the repository: the chart is rendered without it", vf.Path))
			continue
		case vf.Ref != "" && vf.RefRepoURL == "":
			g.res.Errors = append(g.res.Errors, at("value file %s/%s: no source has ref %s", vf.Ref, vf.Path, strings.TrimPrefix(vf.Ref, "$")))
			return nil
		case vf.Ref != "" && !sameRepo(vf.RefRepoURL, c.RepoURL):
			g.res.Warnings = append(g.res.Warnings, at("value file %s/%s is in %s, not in the repository of the chart: the chart is rendered without it", vf.Ref, vf.Path, vf.RefRepoURL))
			continue
		case vf.Ref != "":
			base = root
		}
		name := filepath.Join(base, filepath.FromSlash(vf.Path))
		data, err := opts.links.ReadFile(name, helmValuesLimit)
		if errors.Is(err, fs.ErrNotExist) && c.IgnoreMissing {
			continue
		}
		var v map[string]any
		if err == nil {
			v, err = helm.ParseValues(data)
		}
		if err != nil {
			g.res.Errors = append(g.res.Errors, at("value file %s: %v: %s cannot render the chart, and what it deploys is not counted", vf.Path, cleanErr(err), c.Tool))
			return nil
		}
		overrides = append(overrides, v)
		names = append(names, filepath.ToSlash(vf.Path))
	}
	rel := helm.Release{Name: c.ReleaseName, Namespace: c.Namespace}
	values := "its default values (values.yaml)"
	switch {
	case c.ValueFilesAtRoot && len(overrides) > 0:
		// Flux packages the chart with its value files merged in place of values.yaml.
		rel.Defaults, overrides = helm.MergeValues(overrides...), nil
		values = strings.Join(names, ", ") + " (in place of values.yaml)"
	case len(names) > 0:
		values = "values.yaml, " + strings.Join(names, ", ")
	}
	overrides = append(overrides, c.Overrides...)
	rendered, err := helm.RenderRelease(dir, opts.links, rel, overrides...)
	if err != nil {
		check := "`argocd app manifests`"
		if c.Tool != "Argo CD" {
			check = "`helm template`"
		}
		g.res.Warnings = append(g.res.Warnings, at("a Helm chart gpuguard could not render (%v): what it deploys is not counted here; check %s output with gpuguard check -", err, check))
		return nil
	}
	for _, m := range rendered.Missing {
		g.res.Warnings = append(g.res.Warnings, at("chart %s lists dependency %s %s, which is not in its charts/ (run helm dependency build): what it deploys is not counted", filepath.ToSlash(c.Path), m.Name, m.Version))
	}
	if len(c.Overrides) > 0 {
		kind, _, _ := strings.Cut(c.Owner, " ")
		what := "values"
		if c.Tool == "Argo CD" {
			what = "helm values"
		}
		values += " and the " + kind + "'s " + what
	}
	if len(c.PostRenderers) > 0 {
		values += ", then patched by its post renderers"
	}
	note := fmt.Sprintf("rendered by %s (%s:%d) from the Helm chart %s as release %s with %s; lines are of the rendered template",
		c.Owner, filepath.ToSlash(c.File), c.Line, shown(dir), c.ReleaseName, values)
	out := g.postRender(c, rendered.Rendered, owner(c), note)
	for _, f := range out {
		if c.Namespace != "" {
			f.DefaultNamespace(c.Namespace)
		}
	}
	return out
}

// postRender decodes what a chart rendered, each template a file under owner with note, with
// the chart's Flux post renderers (kustomize patches) applied to its objects. A template that
// is not YAML is read as it stands (its documents' errors are reported as they are), and the
// patches do not reach it.
func (g *gitOps) postRender(c kubernetes.GitSource, rendered []helm.Rendered, owner, note string) []*kubernetes.File {
	var out []*kubernetes.File
	if len(c.PostRenderers) == 0 {
		for _, r := range rendered {
			out = append(out, kubernetes.DecodeRendered(r.Template, owner, note, r.Data))
		}
		return out
	}
	var objs []kustomize.Object
	for _, r := range rendered {
		os, err := kustomize.DecodeObjects(r.Template, r.Data)
		if err != nil {
			out = append(out, kubernetes.DecodeRendered(r.Template, owner, note, r.Data))
			continue
		}
		objs = append(objs, os...)
	}
	for _, spec := range c.PostRenderers {
		errs, warns := kustomize.PostRender(c.File, spec, objs)
		g.res.Errors = append(g.res.Errors, errs...)
		g.res.Warnings = append(g.res.Warnings, warns...)
	}
	return append(out, deployedFilesOf(objs, owner, note)...)
}

// findGitChart looks for the chart directory path names, in the directory of the Application's
// file and those above it, up to the repository's root (the first with .git) and no further than
// the directories gpuguard reads. It returns the chart's directory and the repository root taken,
// or "" when none holds a chart there.
func findGitChart(file, path string, opts Options) (dir, root string) {
	return findInRepo(file, path, opts, helm.IsChart)
}

// findInRepo is the nearest directory path names, from file's directory up to its repository's
// root (as findGitChart says), that is is; with the directory it was taken from, or "".
func findInRepo(file, path string, opts Options, is func(dir string) bool) (dir, root string) {
	path = filepath.FromSlash(strings.TrimPrefix(path, "/"))
	if filepath.IsAbs(path) || path == ".." || strings.HasPrefix(path, ".."+string(filepath.Separator)) {
		return "", ""
	}
	for _, d := range repoDirs(file, opts) {
		cand := filepath.Join(d, path)
		if _, err := opts.links.Resolve(cand); err == nil && is(cand) {
			return cand, d
		}
	}
	return "", ""
}

// repoDirs are the directories from a file's own up to its repository's root (the first that
// holds .git), nearest first, as far as they are within the directories gpuguard reads.
func repoDirs(file string, opts Options) []string {
	abs, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return nil
	}
	var out []string
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := opts.links.Resolve(d); err != nil {
			return out // outside what gpuguard reads
		}
		out = append(out, d)
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil || filepath.Dir(d) == d {
			return out
		}
	}
}

// sameRepo reports whether two repository URLs name the same repository: a trailing .git or /,
// the scheme and a user aside, the SSH form git@host:org/repo being host/org/repo.
func sameRepo(a, b string) bool {
	norm := func(s string) string {
		s = strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), "/"), ".git")
		if _, rest, ok := strings.Cut(s, "://"); ok {
			s = rest
		} else if host, path, ok := strings.Cut(s, ":"); ok {
			s = host + "/" + path // scp-like SSH: git@github.com:acme/platform
		}
		if _, rest, ok := strings.Cut(s, "@"); ok {
			s = rest
		}
		return s
	}
	return norm(a) == norm(b)
}

// shown is a directory as notes name it: relative to the working directory when under it.
func shown(dir string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(dir)
}

// maxTreeEntries bounds the paths of a repository an ApplicationSet's git generators match.
const maxTreeEntries = 200_000

// treeEntry is a path of a repository, relative to its root and slash-separated.
type treeEntry struct {
	rel string
	dir bool
}

// repoTree is the repository being read, as ApplicationSets' git generators see it: its root is
// the first directory above the ApplicationSet's file that holds .git, else the highest one
// gpuguard reads. Entries starting with "." are not listed.
type repoTree struct {
	opts  Options
	trees map[string][]treeEntry // by root, listed once
}

func (r *repoTree) root(from string) (string, error) {
	dirs := repoDirs(from, r.opts)
	if len(dirs) == 0 {
		return "", fmt.Errorf("%s is outside the directories read", filepath.Dir(from))
	}
	return dirs[len(dirs)-1], nil
}

// Match lists the directories or files of the repository that pattern matches.
func (r *repoTree) Match(from, pattern string, dirs bool) ([]string, error) {
	root, err := r.root(from)
	if err != nil {
		return nil, err
	}
	pattern = strings.Trim(path.Clean("/"+pattern), "/")
	var out []string
	for _, e := range r.entries(root) {
		if e.dir == dirs && matchGlob(pattern, e.rel) {
			out = append(out, e.rel)
		}
	}
	return out, nil
}

// entries are a repository's paths, listed once per root.
func (r *repoTree) entries(root string) []treeEntry {
	entries, ok := r.trees[root]
	if !ok {
		entries = r.list(root)
		r.trees[root] = entries
	}
	return entries
}

// list walks a repository's root, in lexical order, within the directories gpuguard reads.
func (r *repoTree) list(root string) []treeEntry {
	var out []treeEntry
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || len(out) >= maxTreeEntries {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if _, err := r.opts.links.Resolve(p); err != nil {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		out = append(out, treeEntry{rel: filepath.ToSlash(rel), dir: d.IsDir()})
		return nil
	})
	return out
}

// ReadFile reads a file of the repository.
func (r *repoTree) ReadFile(from, name string) ([]byte, error) {
	root, err := r.root(from)
	if err != nil {
		return nil, err
	}
	data, err := r.opts.links.ReadFile(filepath.Join(root, filepath.FromSlash(name)), helmValuesLimit)
	return data, cleanErr(err)
}

// matchGlob matches a slash-separated path against a pattern of path.Match segments, where a
// segment ** matches any number of directories.
func matchGlob(pattern, name string) bool {
	ps, ns := strings.Split(pattern, "/"), strings.Split(name, "/")
	ps = slices.CompactFunc(ps, func(a, b string) bool { return a == "**" && b == "**" }) // **/** is **
	var match func(i, j int) bool
	match = func(i, j int) bool {
		for ; i < len(ps); i, j = i+1, j+1 {
			if ps[i] == "**" {
				for k := j; k <= len(ns); k++ {
					if match(i+1, k) {
						return true
					}
				}
				return false
			}
			if j >= len(ns) {
				return false
			}
			if ok, err := path.Match(ps[i], ns[j]); err != nil || !ok {
				return false
			}
		}
		return j == len(ns)
	}
	return match(0, 0)
}
