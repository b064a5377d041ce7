package kubernetes

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/yamlpos"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/helm"
)

// Repository is the Git repository an Argo CD ApplicationSet's git generators read, as the
// caller finds it for the file that declares the ApplicationSet (the repository being read;
// gpuguard cannot fetch another). Paths are slash-separated and relative to its root.
type Repository interface {
	// Match returns the directories (dirs) or files whose paths pattern matches, sorted; a
	// pattern matches as path.Match does, with ** matching any number of directories.
	Match(from, pattern string, dirs bool) ([]string, error)
	// ReadFile reads a file of the repository.
	ReadFile(from, name string) ([]byte, error)
}

// maxGenerated bounds the Applications one ApplicationSet generates.
const maxGenerated = 1000

// maxGeneratorDepth bounds how deep matrix and merge generators nest (Argo CD allows two).
const maxGeneratorDepth = 3

// appSetSpec is what gpuguard reads of an ApplicationSet's spec.
// https://argo-cd.readthedocs.io/en/stable/operator-manual/applicationset/
type appSetSpec struct {
	GoTemplate        bool        `yaml:"goTemplate"`
	GoTemplateOptions []string    `yaml:"goTemplateOptions"`
	Generators        []yaml.Node `yaml:"generators"`
	Template          yaml.Node   `yaml:"template"`
	TemplatePatch     yaml.Node   `yaml:"templatePatch"`
}

// generator is one of spec.generators (or a matrix's or merge's): the kinds gpuguard expands.
type generator struct {
	List *struct {
		Elements []map[string]any `yaml:"elements"`
	} `yaml:"list"`
	Git *struct {
		RepoURL     string `yaml:"repoURL"`
		Directories []struct {
			Path    string `yaml:"path"`
			Exclude bool   `yaml:"exclude"`
		} `yaml:"directories"`
		Files []struct {
			Path string `yaml:"path"`
		} `yaml:"files"`
		Values map[string]string `yaml:"values"`
	} `yaml:"git"`
	Matrix *struct {
		Generators []yaml.Node `yaml:"generators"`
	} `yaml:"matrix"`
	Merge    *mergeGenerator `yaml:"merge"`
	Clusters *struct {
		Selector labelSelector     `yaml:"selector"`
		Values   map[string]string `yaml:"values"`
	} `yaml:"clusters"`
	// Selector keeps the parameter sets whose (flattened) parameters it matches: Argo CD's
	// post selector, on a generator of any kind.
	Selector *labelSelector `yaml:"selector"`
}

// mergeGenerator is a merge generator's settings.
type mergeGenerator struct {
	MergeKeys  []string    `yaml:"mergeKeys"`
	Generators []yaml.Node `yaml:"generators"`
}

// appSet expands one ApplicationSet.
type appSet struct {
	o        *object
	spec     appSetSpec
	repo     Repository
	clusters []argoCluster
	noLocal  bool // argocd-cm turns in-cluster off
	text     *helm.Text
	warns    []string
}

// applications returns the Applications an Argo CD ApplicationSet generates: its template with
// each parameter set of its generators (list; git directories and files of the repository;
// clusters, from the cluster Secrets among the manifests; matrix and merge of those; each kept
// or not by its post selector), substituted as Argo CD does: {{name}} (fasttemplate; a
// parameter not given is left as written) or, with goTemplate, Go templates with Sprig's
// functions over nested parameters, with spec.templatePatch merged over the result. Other
// generators (pull requests, SCM providers, plugins, cluster decision resources) are warnings:
// what they generate is not counted.
// https://argo-cd.readthedocs.io/en/stable/operator-manual/applicationset/Generators/
// https://argo-cd.readthedocs.io/en/stable/operator-manual/applicationset/GoTemplate/
// https://argo-cd.readthedocs.io/en/stable/operator-manual/applicationset/Template/
func applications(o *object, repo Repository, clusters []argoCluster, noLocal bool) (apps []*object, errs []error, warns []string) {
	a := &appSet{o: o, repo: repo, clusters: clusters, noLocal: noLocal}
	if err := decodeSpec(o, &a.spec); err != nil {
		return nil, []error{err}, nil
	}
	if a.spec.Template.Kind != yaml.MappingNode {
		return nil, nil, nil
	}
	a.text = helm.NewText(slices.Contains(a.spec.GoTemplateOptions, "missingkey=error"))
	patch := &a.spec.TemplatePatch
	if patch.Kind == yaml.ScalarNode && strings.TrimSpace(patch.Value) != "" && !a.spec.GoTemplate {
		a.warn("spec.templatePatch is not applied: Argo CD applies it only with goTemplate")
		patch = nil
	}
	type generated struct {
		p    map[string]any
		tmpl *yaml.Node
	}
	var params []generated
	for i := range a.spec.Generators {
		gen := &a.spec.Generators[i]
		field := fmt.Sprintf("spec.generators[%d]", i)
		a.strayTemplate(gen, field)
		// An entry naming several generators generates from each, with its own template.
		kinds := generatorKinds(gen)
		if len(kinds) == 0 {
			kinds = []string{""}
		}
		for _, kind := range kinds {
			ps, err := a.generate(singleGenerator(gen, kind), field, 0)
			if err != nil {
				return nil, []error{err}, a.warns
			}
			// A generator's own template (list.template, matrix.template) is merged over
			// spec.template for its Applications.
			tmpl := &a.spec.Template
			if t := yamlpos.Value(yamlpos.Value(gen, kind), "template"); t != nil && t.Kind == yaml.MappingNode {
				tmpl = copyNode(tmpl, 0)
				mergeNode(tmpl, copyNode(t, 0), false)
			}
			for _, p := range ps {
				params = append(params, generated{p, tmpl})
			}
		}
	}
	if len(params) > maxGenerated {
		a.warn(fmt.Sprintf("its generators make %d Applications: only the first %d are read", len(params), maxGenerated))
		params = params[:maxGenerated]
	}
	for _, g := range params {
		p := g.p
		n, err := a.render(g.tmpl, p, "spec.template")
		if err == nil && patch != nil && patch.Kind == yaml.ScalarNode && strings.TrimSpace(patch.Value) != "" {
			err = a.applyPatch(n, patch, p)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n.Content = append([]*yaml.Node{
			{Kind: yaml.ScalarNode, Value: "apiVersion"}, {Kind: yaml.ScalarNode, Value: "argoproj.io/v1alpha1"},
			{Kind: yaml.ScalarNode, Value: "kind"}, {Kind: yaml.ScalarNode, Value: "Application"},
		}, n.Content...)
		app, err := o.embedded(n, "spec.template")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		apps = append(apps, app)
	}
	return apps, errs, a.warns
}

func (a *appSet) warn(msg string) { a.warns = append(a.warns, msg) }

// generatorKinds are the generators a generator entry names (list, git, matrix, ...), in order:
// every key but its post selector and a misplaced template.
func generatorKinds(n *yaml.Node) []string {
	var kinds []string
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i].Value; k != "selector" && k != "template" {
				kinds = append(kinds, k)
			}
		}
	}
	return kinds
}

// singleGenerator is the entry n with only the generator kind (and its post selector); n itself
// when that is all it names, or when kind is "".
func singleGenerator(n *yaml.Node, kind string) *yaml.Node {
	if kind == "" || len(generatorKinds(n)) < 2 {
		return n
	}
	one := &yaml.Node{Kind: yaml.MappingNode, Line: n.Line, Column: n.Column}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k == kind || k == "selector" {
			one.Content = append(one.Content, n.Content[i], n.Content[i+1])
		}
	}
	return one
}

// strayTemplate warns of a template written beside a generator rather than inside it: the
// ApplicationSet's schema has no such field, so Kubernetes drops it and Argo CD never sees it.
func (a *appSet) strayTemplate(n *yaml.Node, field string) {
	if t := yamlpos.Value(n, "template"); t != nil {
		inside := field + ".<generator>.template"
		if kinds := generatorKinds(n); len(kinds) > 0 {
			inside = field + "." + kinds[0] + ".template"
		}
		a.warn(fmt.Sprintf("%s.template is not applied: a generator's template goes inside the generator (%s); beside it, Kubernetes drops the field", field, inside))
	}
}

// generate returns the parameter sets of one generator that its post selector keeps.
func (a *appSet) generate(n *yaml.Node, field string, depth int) ([]map[string]any, error) {
	var g generator
	if err := n.Decode(&g); err != nil {
		return nil, lineError{line: a.o.lineOf(n), err: fmt.Errorf("%s: %w", field, err)}
	}
	sets, err := a.expand(n, g, field, depth)
	if err != nil || g.Selector == nil {
		return sets, err
	}
	var kept []map[string]any
	for _, p := range sets {
		flat := map[string]any{}
		flatten("", p, flat)
		labels := make(map[string]string, len(flat))
		for k, v := range flat {
			labels[k] = fmt.Sprint(v)
		}
		ok, err := g.Selector.matches(labels)
		if err != nil {
			return nil, lineError{line: a.o.lineOf(n), err: fmt.Errorf("%s.selector: %v", field, err)}
		}
		if ok {
			kept = append(kept, p)
		}
	}
	return kept, nil
}

// expand returns the parameter sets of one generator.
func (a *appSet) expand(n *yaml.Node, g generator, field string, depth int) ([]map[string]any, error) {
	switch {
	case g.List != nil:
		var out []map[string]any
		for _, e := range g.List.Elements {
			out = append(out, a.params(e, nil))
		}
		return out, nil
	case g.Git != nil:
		return a.git(g, field)
	case g.Clusters != nil:
		return a.clusterParams(n, g, field)
	case g.Matrix != nil || g.Merge != nil:
		if depth+1 >= maxGeneratorDepth {
			return nil, lineError{line: a.o.lineOf(n), err: fmt.Errorf("%s: matrix and merge generators nested more than %d deep", field, maxGeneratorDepth)}
		}
		var children []yaml.Node
		kind := "matrix"
		if g.Matrix != nil {
			children = g.Matrix.Generators
		} else {
			children, kind = g.Merge.Generators, "merge"
		}
		if kind == "matrix" && len(children) != 2 {
			return nil, lineError{line: a.o.lineOf(n), err: fmt.Errorf("%s.matrix: a matrix combines two generators, not %d", field, len(children))}
		}
		for i := range children {
			child := fmt.Sprintf("%s.%s.generators[%d]", field, kind, i)
			a.strayTemplate(&children[i], child)
			kinds := generatorKinds(&children[i])
			if len(kinds) > 1 {
				return nil, lineError{line: a.o.lineOf(&children[i]), err: fmt.Errorf("%s names %d generators (%s): Argo CD takes one per entry of a %s, and fails", child, len(kinds), strings.Join(kinds, ", "), kind)}
			}
			for _, k := range kinds {
				if t := yamlpos.Value(yamlpos.Value(&children[i], k), "template"); t != nil {
					a.warn(fmt.Sprintf("%s.%s.template is not applied: Argo CD does not apply the templates of a %s's generators", child, k, kind))
				}
			}
		}
		var sets [][]map[string]any
		for i := range children {
			if kind == "matrix" && i == 1 && hasTags(&children[1]) {
				break // the second takes the first's parameters: below
			}
			ps, err := a.generate(&children[i], fmt.Sprintf("%s.%s.generators[%d]", field, kind, i), depth+1)
			if err != nil {
				return nil, err
			}
			sets = append(sets, ps)
		}
		if kind == "merge" {
			return a.merge(sets, g.Merge.MergeKeys), nil
		}
		var out []map[string]any
		for _, x := range sets[0] {
			ys := sets[len(sets)-1]
			if len(sets) == 1 {
				// Argo CD's matrix renders its second generator with each parameter set of the
				// first, so that one can use the other's (a git path per cluster, say).
				second := fmt.Sprintf("%s.matrix.generators[1]", field)
				child, err := a.render(&children[1], x, second)
				if err != nil {
					return nil, err
				}
				if ys, err = a.generate(child, second, depth+1); err != nil {
					return nil, err
				}
			}
			for _, y := range ys {
				out = append(out, helm.MergeValues(x, y))
			}
			if len(out) > maxGenerated {
				break
			}
		}
		return out, nil
	}
	kind := "an unknown"
	if n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			if k := n.Content[i].Value; k != "selector" && k != "template" {
				kind = "the " + k
				break
			}
		}
	}
	a.warn(fmt.Sprintf("%s: %s generator is not expanded: the Applications it generates are not counted", field, kind))
	return nil, nil
}

// merge is the merge generator: the first generator's sets, each with the sets of the others
// whose mergeKeys values equal its own merged over it, in order.
func (a *appSet) merge(sets [][]map[string]any, keys []string) []map[string]any {
	if len(sets) == 0 {
		return nil
	}
	key := func(p map[string]any) string {
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%v\x00", lookupParam(p, k))
		}
		return b.String()
	}
	out := make([]map[string]any, len(sets[0]))
	copy(out, sets[0])
	for _, other := range sets[1:] {
		for _, o := range other {
			for i, base := range out {
				if key(base) == key(o) {
					out[i] = helm.MergeValues(base, o)
				}
			}
		}
	}
	return out
}

// lookupParam is a parameter by its name: a dotted path in nested (goTemplate) parameters, the
// flat key itself in fasttemplate ones.
func lookupParam(p map[string]any, name string) any {
	if v, ok := p[name]; ok {
		return v
	}
	var cur any = p
	for _, k := range strings.Split(name, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// git is the git generator over the repository: a set per directory its directories match
// (those an exclude entry matches left out), or per file (per element of a file holding a
// list) its files match.
func (a *appSet) git(g generator, field string) ([]map[string]any, error) {
	gg := g.Git
	if a.repo == nil {
		a.warn(field + ": the git generator is not expanded here: the Applications it generates are not counted")
		return nil, nil
	}
	var out []map[string]any
	var values map[string]any
	if len(gg.Values) > 0 {
		values = map[string]any{}
		for k, v := range gg.Values {
			values[k] = v
		}
	}
	matched := false
	if len(gg.Directories) > 0 {
		excluded := map[string]bool{}
		var include []string
		for _, d := range gg.Directories {
			dirs, err := a.repo.Match(a.o.file, d.Path, true)
			if err != nil {
				return nil, lineError{line: a.o.line, err: fmt.Errorf("%s.git.directories: %v", field, err)}
			}
			for _, dir := range dirs {
				if d.Exclude {
					excluded[dir] = true
				} else {
					include = append(include, dir)
				}
			}
		}
		seen := map[string]bool{}
		for _, dir := range include {
			if excluded[dir] || seen[dir] {
				continue
			}
			seen[dir], matched = true, true
			out = append(out, a.params(nil, a.pathParams(dir, "")))
		}
	}
	for _, f := range gg.Files {
		files, err := a.repo.Match(a.o.file, f.Path, false)
		if err != nil {
			return nil, lineError{line: a.o.line, err: fmt.Errorf("%s.git.files: %v", field, err)}
		}
		for _, name := range files {
			matched = true
			data, err := a.repo.ReadFile(a.o.file, name)
			if err != nil {
				return nil, lineError{line: a.o.line, err: fmt.Errorf("%s.git.files: %s: %v", field, name, err)}
			}
			var doc any
			if err := yaml.Unmarshal(data, &doc); err != nil {
				return nil, lineError{line: a.o.line, err: fmt.Errorf("%s.git.files: %s is not JSON or YAML: %v", field, name, err)}
			}
			docs, ok := doc.([]any)
			if !ok {
				docs = []any{doc}
			}
			for _, d := range docs {
				m, _ := d.(map[string]any)
				out = append(out, a.params(m, a.pathParams(path.Dir(name), path.Base(name))))
			}
		}
	}
	if !matched {
		a.warn(fmt.Sprintf("%s: the git generator matches nothing in this repository (%s may be another): the Applications it generates are not counted", field, gg.RepoURL))
	}
	if values != nil {
		for i := range out {
			out[i] = helm.MergeValues(out[i], a.params(map[string]any{"values": values}, nil))
		}
	}
	return out, nil
}

// pathParams are the parameters of a matched directory, or of the directory of a matched file
// (filename being its name).
func (a *appSet) pathParams(dir, filename string) map[string]any {
	segs := strings.Split(dir, "/")
	p := map[string]any{"path": dir, "basename": path.Base(dir), "basenameNormalized": normalizeName(path.Base(dir))}
	if filename != "" {
		p["filename"], p["filenameNormalized"] = filename, normalizeName(filename)
	}
	if a.spec.GoTemplate {
		list := make([]any, len(segs))
		for i, s := range segs {
			list[i] = s
		}
		p["segments"] = list
		return map[string]any{"path": p}
	}
	flat := map[string]any{"path": dir}
	for k, v := range p {
		if k != "path" {
			flat["path."+k] = v
		}
	}
	for i, s := range segs {
		flat["path["+strconv.Itoa(i)+"]"] = s
	}
	return flat
}

var unsupportedName = regexp.MustCompile(`[^a-zA-Z0-9.-]`)

// normalizeName is a name with what a Kubernetes name may not hold replaced by '-'.
func normalizeName(s string) string { return unsupportedName.ReplaceAllString(s, "-") }

// params are a generator's values (nested under goTemplate, flattened to dotted keys of text
// otherwise) with extra over them.
func (a *appSet) params(values, extra map[string]any) map[string]any {
	out := map[string]any{}
	if a.spec.GoTemplate {
		for k, v := range values {
			out[k] = v
		}
	} else {
		flatten("", values, out)
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// flatten writes nested values as fasttemplate parameters: "a.b" for nested keys, scalars as
// text, lists as JSON.
func flatten(prefix string, v any, out map[string]any) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			flatten(key, x, out)
		}
	case nil:
		if prefix != "" {
			out[prefix] = ""
		}
	case string:
		out[prefix] = t
	case []any:
		b, _ := json.Marshal(t)
		out[prefix] = string(b)
	default:
		out[prefix] = fmt.Sprint(t)
	}
}

var fastTag = regexp.MustCompile(`\{\{([^{}]*)\}\}`)

// render is a copy of tmpl (the template, or a generator) with one parameter set substituted
// in every text value; field names tmpl in errors.
func (a *appSet) render(tmpl *yaml.Node, p map[string]any, field string) (*yaml.Node, error) {
	n := copyNode(tmpl, 0)
	var err error
	walkScalars(n, func(s *yaml.Node) {
		if err != nil || !strings.Contains(s.Value, "{{") {
			return
		}
		out, e := a.substitute(s.Value, p)
		if e != nil {
			err = lineError{line: a.o.lineOf(s), err: fmt.Errorf("%s: %v", field, e)}
			return
		}
		s.Value = out
	})
	return n, err
}

// substitute is text with one parameter set substituted: fasttemplate tags, a tag no parameter
// fills left as written, or a Go template under goTemplate.
func (a *appSet) substitute(text string, p map[string]any) (string, error) {
	if !a.spec.GoTemplate {
		return fastTag.ReplaceAllStringFunc(text, func(tag string) string {
			if v, ok := p[strings.TrimSpace(tag[2:len(tag)-2])]; ok {
				return fmt.Sprint(v)
			}
			return tag
		}), nil
	}
	return a.text.Render(text, p)
}

// hasTags reports whether a text value of n holds a template tag.
func hasTags(n *yaml.Node) bool {
	found := false
	walkScalars(n, func(s *yaml.Node) { found = found || strings.Contains(s.Value, "{{") })
	return found
}

// copyNode copies a node tree (aliases resolved, so many levels deep at most).
func copyNode(n *yaml.Node, depth int) *yaml.Node {
	if n == nil || depth > maxEmbedded*4 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	if n.Kind == yaml.AliasNode {
		return copyNode(n.Alias, depth+1)
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = copyNode(x, depth+1)
	}
	return &c
}

// walkScalars calls f on each scalar value of a mapping or sequence (not keys).
func walkScalars(n *yaml.Node, f func(*yaml.Node)) {
	switch n.Kind {
	case yaml.ScalarNode:
		f(n)
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			walkScalars(n.Content[i], f)
		}
	case yaml.SequenceNode, yaml.DocumentNode:
		for _, x := range n.Content {
			walkScalars(x, f)
		}
	}
}

// ApplicationSetApps returns the Applications the ApplicationSets among files generate, a file
// for each file that declares some (each Application at its ApplicationSet's file and template
// lines), with what the ApplicationSets get wrong (errors) and what gpuguard does not expand
// (warnings).
func ApplicationSetApps(files []*File, repo Repository) (out []*File, errs, warns []parser.Error) {
	clusters, noLocal, warns := argoClusters(files)
	for _, f := range files {
		for _, o := range f.objects {
			if o.Kind != "ApplicationSet" || group(o.APIVersion) != "argoproj.io" {
				continue
			}
			apps, es, ws := applications(o, repo, clusters, noLocal)
			for _, e := range es {
				errs = append(errs, specError(o, e))
			}
			for _, w := range ws {
				warns = append(warns, parser.Error{File: o.file, Line: o.line, Message: o.address() + ": " + w})
			}
			if len(apps) > 0 {
				if len(out) == 0 || out[len(out)-1].Name != f.Name {
					out = append(out, &File{Name: f.Name})
				}
				out[len(out)-1].objects = append(out[len(out)-1].objects, apps...)
			}
		}
	}
	return out, errs, warns
}
