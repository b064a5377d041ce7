package scan

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
	"github.com/gpuguard/gpuguard/parser/kustomize"
)

// findKustomization looks for the kustomization directory an Argo CD source's path names, as
// findGitChart looks for a chart: from the Application's directory up to the repository's root.
func findKustomization(file, p string, opts Options) string {
	dir, _ := findInRepo(file, p, opts, func(cand string) bool {
		return slices.ContainsFunc(kustomize.FileNames, func(n string) bool {
			_, err := os.Lstat(filepath.Join(cand, n))
			return err == nil
		})
	})
	return dir
}

// buildAppKustomization builds the kustomization an Argo CD Application's source names, with the
// source's kustomize settings written into it first as Argo CD writes them, into objects under
// the Application's root; objects that name no namespace go to its destination's. The
// kustomization and the files it reads are the Application's: they are not counted again on
// their own.
func (g *gitOps) buildAppKustomization(c kubernetes.GitSource, dir string, opts Options) []*kubernetes.File {
	var b kustomize.Result
	if c.Kustomize != nil {
		b = kustomize.BuildEdited(dir, opts.links, c.File, c.Kustomize)
	} else {
		b = kustomize.Build(dir, opts.links)
	}
	settings := ""
	if c.Kustomize != nil {
		kind, _, _ := strings.Cut(c.Owner, " ")
		settings = " with the " + kind + "'s settings"
	}
	return g.kustomizationFiles(c, dir, b, "the kustomization "+shown(dir)+settings)
}

// buildFluxDirectory builds the plain directory (no kustomization file) a Flux Kustomization's
// path names, from the repository's root, as Flux does: through the kustomization it generates,
// whose resources are the directory's .yaml and .yml files and those of its subdirectories,
// except that a subdirectory that holds a kustomization is a resource itself (built with its
// own patches) and is not read further. Files the GitRepository leaves out (fluxIgnore) are
// not read. What the directory holds is the Kustomization's and not counted again on its own.
// A path that is not a directory there is left alone: it may be another repository's.
// https://fluxcd.io/flux/components/kustomize/kustomizations/#generating-a-kustomizationyaml-file
func (g *gitOps) buildFluxDirectory(c kubernetes.GitSource, opts Options) []*kubernetes.File {
	tree := &repoTree{opts: opts, trees: g.trees}
	root, prefix, dir, ok := sourceDir(tree, c, opts)
	if !ok {
		return nil
	}
	entries := tree.entries(root)
	key := root + "\x00"
	if c.SourceIgnore != nil {
		key += "spec:" + *c.SourceIgnore
	}
	ignore, ok := g.ignores[key]
	if !ok {
		ignore = fluxIgnore(root, entries, opts, c.SourceIgnore)
		g.ignores[key] = ignore
	}
	hasKustomization := func(d string) bool {
		return slices.ContainsFunc(kustomize.FileNames, func(n string) bool {
			st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(d), n))
			return err == nil && !st.IsDir() && !ignore.ignored(d+"/"+n, false)
		})
	}
	var resources []string
	skip := "" // a subdirectory built as a kustomization: what is below it is its own
	for _, e := range entries {
		if !strings.HasPrefix(e.rel, prefix) {
			continue
		}
		// What the directory holds is deployed from here, if at all.
		if r := realPath(filepath.Join(root, filepath.FromSlash(e.rel))); r != "" {
			g.consumed[r] = true
		}
		if skip != "" && strings.HasPrefix(e.rel, skip) {
			continue
		}
		inner := e.rel[len(prefix):]
		switch {
		case e.dir && hasKustomization(e.rel):
			resources = append(resources, inner)
			skip = e.rel + "/"
		case !e.dir && (path.Ext(inner) == ".yaml" || path.Ext(inner) == ".yml") && !ignore.ignored(e.rel, false):
			resources = append(resources, inner)
		}
	}
	b := kustomize.BuildGenerated(dir, resources, opts.links, c.File, c.Line, c.Kustomize)
	return g.kustomizationFiles(c, dir, b, "the directory "+shown(dir)+" (the kustomization Flux generates of its manifests)")
}

// kustomizationFiles are the objects a GitOps source's kustomization built (b, from dir; what
// says what, in the notes) deploys: under the source's root, those that name no namespace in
// its destination's. The directory and the files it read are the source's: they are not
// counted again on their own.
func (g *gitOps) kustomizationFiles(c kubernetes.GitSource, dir string, b kustomize.Result, what string) []*kubernetes.File {
	g.consumed[realPath(dir)] = true
	g.res.Errors = append(g.res.Errors, b.Errors...)
	g.res.Warnings = append(g.res.Warnings, b.Warnings...)
	for _, f := range b.Files {
		if r := realPath(f); r != "" {
			g.consumed[r] = true
		}
	}
	note := fmt.Sprintf("deployed by %s (%s:%d) from %s", c.Owner, filepath.ToSlash(c.File), c.Line, what)
	g.substitute(c, b.Objects)
	out := deployedFilesOf(b.Objects, owner(c), note)
	for _, f := range out {
		if c.Namespace != "" {
			f.DefaultNamespace(c.Namespace)
		}
	}
	return out
}

// substitute replaces a Flux Kustomization's post-build variables in the objects it deploys; a
// variable with no value and no default is a warning (Flux substitutes empty text).
func (g *gitOps) substitute(c kubernetes.GitSource, objs []kustomize.Object) {
	if c.Variables == nil {
		if used := kustomize.References(objs); c.Kustomization && len(used) > 0 {
			g.res.Warnings = append(g.res.Warnings, parser.Error{File: c.File, Line: c.Line, Message: fmt.Sprintf("%s: what it deploys uses post-build variables %s, but it has no spec.postBuild: Flux substitutes only with one, and applies them as written", address(c), strings.Join(used, ", "))})
		}
		return
	}
	if missing := kustomize.Substitute(objs, c.Variables); len(missing) > 0 {
		g.res.Warnings = append(g.res.Warnings, parser.Error{File: c.File, Line: c.Line, Message: fmt.Sprintf("%s: post-build variables %s are not set and have no default: Flux substitutes empty text", address(c), strings.Join(missing, ", "))})
	}
}

// address names a GitOps source's object as messages about objects name them:
// Kind/namespace/name.
func address(c kubernetes.GitSource) string {
	return strings.Replace(c.Owner, " ", "/", 1)
}

// owner is the root the resources a GitOps source deploys are reported under: the declaring
// object's file and namespace/name.
func owner(c kubernetes.GitSource) string {
	_, name, _ := strings.Cut(c.Owner, " ")
	return filepath.ToSlash(c.File) + "#" + name
}

// sourceDir is the directory a GitOps source's path names in the repository being read: the
// repository's root (the directory above the source's file that holds .git, else the highest
// one gpuguard reads), the prefix of the repository paths below the directory (the path from the
// root and "/", "" for the root itself) and the directory. ok is false when that is not a
// directory gpuguard reads: it may be another repository's.
func sourceDir(tree *repoTree, c kubernetes.GitSource, opts Options) (root, prefix, dir string, ok bool) {
	root, err := tree.root(c.File)
	if err != nil {
		return "", "", "", false
	}
	rel := strings.Trim(path.Clean("/"+filepath.ToSlash(c.Path)), "/")
	dir = filepath.Join(root, filepath.FromSlash(rel))
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", "", "", false
	}
	if _, err := opts.links.Resolve(dir); err != nil {
		return "", "", "", false
	}
	if rel != "" {
		prefix = rel + "/"
	}
	return root, prefix, dir, true
}

// maxDirectoryFiles bounds the manifests one Argo CD directory source reads.
const maxDirectoryFiles = 10_000

// readDirectory reads the plain directory of manifests an Argo CD Application's source names, as
// Argo CD reads it: the path from the repository's root (the directory above the Application
// that holds .git, else the highest one gpuguard reads); its .yaml, .yml and .json files, those
// of its subdirectories with directory.recurse, kept by directory.include and left out by
// directory.exclude (globs over paths relative to it, {a,b} alternatives, * crossing
// directories). Its objects are the Application's, under its root; its files (those it
// excludes too) are not counted again on their own. Jsonnet is not evaluated (a warning). A path that is not a directory there
// is left alone: it may be another repository's.
func (g *gitOps) readDirectory(c kubernetes.GitSource, opts Options) []*kubernetes.File {
	tree := &repoTree{opts: opts, trees: g.trees}
	root, prefix, dir, ok := sourceDir(tree, c, opts)
	if !ok {
		return nil
	}
	include, exclude := globRegexp(c.Directory.Include), globRegexp(c.Directory.Exclude)
	var names, jsonnet []string
	for _, e := range tree.entries(root) {
		if e.dir || !strings.HasPrefix(e.rel, prefix) {
			continue
		}
		inner := e.rel[len(prefix):]
		if !c.Directory.Recurse && strings.Contains(inner, "/") {
			continue
		}
		// What the Application leaves out of its directory is not deployed from there either.
		if r := realPath(filepath.Join(root, filepath.FromSlash(e.rel))); r != "" {
			g.consumed[r] = true
		}
		if include != nil && !include.MatchString(inner) || exclude != nil && exclude.MatchString(inner) {
			continue
		}
		switch path.Ext(inner) {
		case ".yaml", ".yml", ".json":
			names = append(names, e.rel)
		case ".jsonnet":
			jsonnet = append(jsonnet, inner)
		}
	}
	g.consumed[realPath(dir)] = true
	if len(jsonnet) > 0 {
		g.res.Warnings = append(g.res.Warnings, parser.Error{File: c.File, Line: c.Line, Message: fmt.Sprintf("%s: Jsonnet in %s is not evaluated (%s): what it deploys is not counted", address(c), shown(dir), strings.Join(jsonnet, ", "))})
	}
	if len(names) > maxDirectoryFiles {
		g.res.Warnings = append(g.res.Warnings, parser.Error{File: c.File, Line: c.Line, Message: fmt.Sprintf("%s: %s holds %d manifests: only the first %d are read", address(c), shown(dir), len(names), maxDirectoryFiles)})
		names = names[:maxDirectoryFiles]
	}
	note := fmt.Sprintf("deployed by %s (%s:%d) from the directory %s", c.Owner, filepath.ToSlash(c.File), c.Line, shown(dir))
	var out []*kubernetes.File
	for _, n := range names {
		name := filepath.Join(root, filepath.FromSlash(n))
		data, err := opts.links.ReadFile(name, MaxInputSize)
		if err != nil {
			g.res.Errors = append(g.res.Errors, parser.Error{File: name, Message: fmt.Sprintf("cannot read: %v", cleanErr(err))})
			continue
		}
		f := kubernetes.DecodeRendered(name, owner(c), note, data)
		if c.Namespace != "" {
			f.DefaultNamespace(c.Namespace)
		}
		out = append(out, f)
	}
	return out
}

// globRegexp compiles an Argo CD directory include or exclude pattern: '*' matches any text
// ('/' too), '?' one character, [...] a class, {a,b} either; nil for "" (no pattern).
func globRegexp(pattern string) *regexp.Regexp {
	if pattern == "" {
		return nil
	}
	var b strings.Builder
	b.WriteString("^")
	depth := 0
	for i := 0; i < len(pattern); i++ {
		switch ch := pattern[i]; {
		case ch == '*':
			b.WriteString(".*")
		case ch == '?':
			b.WriteString(".")
		case ch == '{':
			depth++
			b.WriteString("(?:")
		case ch == '}' && depth > 0:
			depth--
			b.WriteString(")")
		case ch == ',' && depth > 0:
			b.WriteString("|")
		case ch == '[':
			end := strings.IndexByte(pattern[i:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := pattern[i+1 : i+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end
		default:
			b.WriteString(regexp.QuoteMeta(string(ch)))
		}
	}
	for ; depth > 0; depth-- {
		b.WriteString(")")
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return regexp.MustCompile(`^` + regexp.QuoteMeta(pattern) + `$`)
	}
	return re
}
