package kustomize

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/internal/yamlpos"
	"github.com/gpuguard/gpuguard/parser"
)

// FileNames are the names kustomize reads as a directory's kustomization.
var FileNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// IsKustomization reports whether a file name is one kustomize reads as a kustomization.
func IsKustomization(name string) bool { return slices.Contains(FileNames, name) }

// maxFile bounds a kustomization, manifest or patch file read.
const maxFile = 16 << 20

// maxDepth bounds kustomizations nested in kustomizations.
const maxDepth = 32

// Kustomization is the part of a kustomization file that is read.
type Kustomization struct {
	Resources             []string          `yaml:"resources"`
	Bases                 []string          `yaml:"bases"`
	Components            []string          `yaml:"components"`
	Namespace             string            `yaml:"namespace"`
	NamePrefix            string            `yaml:"namePrefix"`
	NameSuffix            string            `yaml:"nameSuffix"`
	CommonLabels          map[string]string `yaml:"commonLabels"`
	CommonAnnotations     map[string]string `yaml:"commonAnnotations"`
	Labels                []labelSet        `yaml:"labels"`
	Replicas              []replicaCount    `yaml:"replicas"`
	Patches               []patchRef        `yaml:"patches"`
	PatchesStrategicMerge []string          `yaml:"patchesStrategicMerge"`
	PatchesJSON6902       []patchRef        `yaml:"patchesJson6902"`
	HelmCharts            []yaml.Node       `yaml:"helmCharts"`
	Replacements          []replacement     `yaml:"replacements"`
	Vars                  []yaml.Node       `yaml:"vars"`
	ConfigMapGenerator    []generator       `yaml:"configMapGenerator"`
	SecretGenerator       []generator       `yaml:"secretGenerator"`

	lines map[string]int // the line of each entry (a path, a name, an inline patch), for messages
	// replacementLines is the line of each replacements entry.
	replacementLines []int
}

// Parse reads a kustomization file's text.
func Parse(data []byte) (*Kustomization, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	k := &Kustomization{lines: map[string]int{}}
	if len(root.Content) == 0 {
		return k, nil
	}
	doc := root.Content[0]
	if err := doc.Decode(k); err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value == "replacements" {
			for _, item := range doc.Content[i+1].Content {
				k.replacementLines = append(k.replacementLines, item.Line)
			}
		}
		for _, item := range doc.Content[i+1].Content {
			if doc.Content[i+1].Kind != yaml.SequenceNode {
				break
			}
			if item.Kind == yaml.ScalarNode {
				k.lines[item.Value] = item.Line
			}
			for j := 0; item.Kind == yaml.MappingNode && j+1 < len(item.Content); j += 2 {
				if v := item.Content[j+1]; v.Kind == yaml.ScalarNode {
					k.lines[v.Value] = v.Line
				}
			}
		}
	}
	return k, nil
}

// line is the line of an entry of the kustomization, 0 when it is not known.
func (k *Kustomization) line(entry string) int {
	return k.lines[entry]
}

type labelSet struct {
	Pairs            map[string]string `yaml:"pairs"`
	IncludeTemplates bool              `yaml:"includeTemplates"`
	IncludeSelectors bool              `yaml:"includeSelectors"`
}

type replicaCount struct {
	Name  string `yaml:"name"`
	Count int    `yaml:"count"`
}

type patchRef struct {
	Path   string  `yaml:"path"`
	Patch  string  `yaml:"patch"`
	Target *target `yaml:"target"`

	// file and line are where a patch added by an edit (edit.go) is written, for messages;
	// "" for the kustomization's own.
	file string
	line int
}

// target selects the objects a patch applies to; names and kinds are anchored regular
// expressions, as in kustomize.
type target struct {
	Group         string `yaml:"group"`
	Version       string `yaml:"version"`
	Kind          string `yaml:"kind"`
	Name          string `yaml:"name"`
	Namespace     string `yaml:"namespace"`
	LabelSelector string `yaml:"labelSelector"`

	// The kind, name and namespace expressions, compiled once for all the objects a patch is
	// tried on (compiling them per object was a fifth of a build).
	compiled              bool
	kind, name, namespace pattern
}

// pattern is a kustomize selector expression: an anchored regular expression, or the literal
// text when it is not one; the empty expression matches anything.
type pattern struct {
	expr string
	re   *regexp.Regexp
}

func compilePattern(expr string) pattern {
	p := pattern{expr: expr}
	if expr != "" {
		p.re, _ = regexp.Compile("^(?:" + expr + ")$")
	}
	return p
}

func (p pattern) match(v string) bool {
	switch {
	case p.expr == "":
		return true
	case p.re == nil:
		return p.expr == v
	}
	return p.re.MatchString(v)
}

// Object is one object a kustomization deploys: its YAML mapping and the file that declares it
// (node lines are lines of that file).
type Object struct {
	Node *yaml.Node
	File string
	// names are the names the object had before this build renamed it, for patches and
	// references written against the base's names.
	names []string
}

// Result is what a build deploys and what it read.
type Result struct {
	Objects []Object
	// Files are every manifest and patch file the build read (cleaned paths): they are the
	// build's input, not manifests to count again on their own.
	Files    []string
	Errors   []parser.Error
	Warnings []parser.Error
}

// Read reads the kustomization file in dir; "" and nil when there is none.
func Read(dir string, links confine.Dirs) (string, *Kustomization, error) {
	for _, n := range FileNames {
		p := filepath.Join(dir, n)
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		data, err := links.ReadFile(p, maxFile)
		if err != nil {
			return p, nil, err
		}
		k, err := Parse(data)
		if err != nil {
			return p, nil, fmt.Errorf("invalid kustomization: %v", err)
		}
		return p, k, nil
	}
	return "", nil, nil
}

// Build renders the kustomization in dir.
func Build(dir string, links confine.Dirs) Result {
	return (&builder{links: links, files: map[string]bool{}}).result(dir)
}

// result builds the kustomization in dir.
func (b *builder) result(dir string) Result {
	objs := b.build(filepath.Clean(dir), nil, 0)
	res := Result{Objects: objs, Errors: b.errs, Warnings: b.warns}
	for f := range b.files {
		res.Files = append(res.Files, f)
	}
	sort.Strings(res.Files)
	return res
}

type builder struct {
	links       confine.Dirs
	files       map[string]bool
	errs, warns []parser.Error
	// scope names what patches apply to, in messages ("" for a kustomization's resources).
	scope string
	// edit changes the kustomization being built (not those it builds on) before it is built:
	// an Argo CD Application's kustomize settings (edit.go).
	edit func(*Kustomization)
	// generated is the kustomization Flux generates for a root directory that holds none
	// (BuildGenerated), its entries at lines of generatedFile; nil otherwise.
	generated      *Kustomization
	generatedFile  string
	generatedFiles map[string]bool // its manifests' paths
}

func (b *builder) errorf(file string, line int, format string, args ...any) {
	b.errs = append(b.errs, parser.Error{File: file, Line: line, Message: fmt.Sprintf(format, args...)})
}

// IsRemote reports whether a resource or patch entry is fetched from elsewhere.
func IsRemote(entry string) bool {
	for _, p := range []string{"://", "git@", "github.com/", "gitlab.com/", "bitbucket.org/"} {
		if strings.Contains(entry, p) {
			return true
		}
	}
	return false
}

// build renders one kustomization; stack holds the directories being built, to tell a cycle.
func (b *builder) build(dir string, stack []string, depth int) []Object {
	for _, d := range stack {
		if d == dir {
			b.errorf(dir, 0, "kustomizations include each other (%s)", strings.Join(append(stack, dir), " → "))
			return nil
		}
	}
	if depth > maxDepth {
		b.errorf(dir, 0, "kustomizations nested more than %d deep", maxDepth)
		return nil
	}
	file, k, err := Read(dir, b.links)
	if err != nil {
		b.errorf(file, 0, "%v", err)
		return nil
	}
	if k == nil && len(stack) == 0 && b.generated != nil {
		file, k = b.generatedFile, b.generated
	}
	if k == nil {
		b.errorf(dir, 0, "no kustomization.yaml in this directory")
		return nil
	}
	if len(stack) == 0 && b.edit != nil {
		b.edit(k)
	}
	stack = append(stack, dir)
	var objs []Object
	for _, r := range append(append([]string{}, k.Resources...), k.Bases...) {
		objs = append(objs, b.resource(file, k.line(r), dir, r, stack, depth)...)
	}
	if len(k.HelmCharts) > 0 {
		b.warns = append(b.warns, parser.Error{File: file, Line: k.HelmCharts[0].Line,
			Message: "helmCharts are not inflated: what they deploy is not counted here; check `kustomize build --enable-helm " + filepath.ToSlash(dir) + " | gpuguard check -`"})
	}
	for _, c := range k.Components {
		if IsRemote(c) {
			b.warns = append(b.warns, parser.Error{File: file, Line: k.line(c), Message: fmt.Sprintf("remote component %q is not fetched: what it changes is not applied", c)})
			continue
		}
		cdir := join(dir, c)
		cfile, ck, err := Read(cdir, b.links)
		if err != nil || ck == nil {
			b.errorf(file, k.line(c), "component %q: %v", c, orMissing(err))
			continue
		}
		for _, r := range ck.Resources {
			objs = append(objs, b.resource(cfile, ck.line(r), cdir, r, append(stack, cdir), depth+1)...)
		}
		objs = b.transform(cfile, cdir, ck, b.generate(cfile, cdir, ck, objs))
	}
	return b.transform(file, dir, k, b.generate(file, dir, k, objs))
}

// join resolves a path a kustomization names against its directory.
func join(dir, p string) string {
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Clean(filepath.Join(dir, p))
}

func orMissing(err error) error {
	if err == nil {
		return fmt.Errorf("no kustomization.yaml there")
	}
	return err
}

// resource reads one resources entry: a manifest file or a kustomization directory.
func (b *builder) resource(file string, line int, dir, entry string, stack []string, depth int) []Object {
	if IsRemote(entry) {
		b.warns = append(b.warns, parser.Error{File: file, Line: line, Message: fmt.Sprintf("remote resource %q is not fetched: what it deploys is not counted here", entry)})
		return nil
	}
	p := join(dir, entry)
	real, err := b.links.Resolve(p)
	if err != nil {
		b.errorf(file, line, "resource %q: %v", entry, err)
		return nil
	}
	info, err := os.Stat(real)
	if err != nil {
		b.errorf(file, line, "resource %q: %v", entry, err)
		return nil
	}
	if info.IsDir() {
		return b.build(p, stack, depth+1)
	}
	return b.manifest(p)
}

// manifest reads the objects of a manifest file, each node's line a line of the file.
func (b *builder) manifest(p string) []Object {
	data, err := b.links.ReadFile(p, maxFile)
	if err != nil {
		b.errorf(p, 0, "cannot read: %v", err)
		return nil
	}
	b.files[p] = true
	docs, err := decodeAll(data)
	if err != nil {
		b.errorf(p, 0, "invalid YAML: %v", err)
		return nil
	}
	var out []Object
	for _, d := range docs {
		if isNull(d) || d.Kind == yaml.MappingNode && len(d.Content) == 0 {
			continue // an empty document
		}
		if d.Kind != yaml.MappingNode || scalar(yamlpos.Value(d, "kind")) == "" {
			// kustomize reads every document of a resource file as an object, and stops at one
			// without a kind ("missing Resource metadata").
			if b.generatedFiles[p] {
				b.errorf(p, d.Line, "not a Kubernetes object (no kind): Flux fails to generate the kustomization of the directory that holds it (leave the file out with a .sourceignore)")
			} else {
				b.errorf(p, d.Line, "not a Kubernetes object (no kind): kustomize build fails on it")
			}
			continue
		}
		if yamlpos.Value(d, "apiVersion") == nil {
			continue
		}
		out = append(out, Object{Node: d, File: p})
	}
	return out
}

// decodeAll reads every document of a YAML stream; node lines are lines of the stream.
func decodeAll(data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*yaml.Node
	for len(out) < 100000 {
		var n yaml.Node
		err := dec.Decode(&n)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		if len(n.Content) > 0 {
			out = append(out, n.Content[0])
		}
	}
	return out, nil
}

// patch is one patch read: a strategic merge document or JSON 6902 operations.
type patch struct {
	file   string
	line   int
	doc    *yaml.Node // strategic merge, or the sequence of operations
	json   bool
	target *target
}

// transform applies a kustomization's own changes to the objects it gathered, in kustomize's
// order: patches, namespace, name prefix and suffix, labels and annotations, replica counts,
// then replacements.
func (b *builder) transform(file, dir string, k *Kustomization, objs []Object) []Object {
	var patches []patch
	read := func(p patchRef, json bool) {
		at, line := file, k.line(p.Path)
		if p.Patch != "" {
			line = k.line(p.Patch)
		}
		if p.file != "" {
			at, line = p.file, p.line
		}
		switch {
		case p.Patch != "":
			docs, err := decodeAll([]byte(p.Patch))
			if err != nil || len(docs) == 0 {
				b.errorf(at, line, "inline patch: invalid YAML: %v", err)
				return
			}
			for _, d := range docs {
				patches = append(patches, patch{file: at, line: line, doc: d, json: json || d.Kind == yaml.SequenceNode, target: p.Target})
			}
		case p.Path != "":
			if IsRemote(p.Path) {
				b.warns = append(b.warns, parser.Error{File: at, Line: line, Message: fmt.Sprintf("remote patch %q is not fetched and not applied", p.Path)})
				return
			}
			pp := join(dir, p.Path)
			data, err := b.links.ReadFile(pp, maxFile)
			if err != nil {
				b.errorf(at, line, "patch %q: %v", p.Path, err)
				return
			}
			b.files[pp] = true
			docs, err := decodeAll(data)
			if err != nil {
				b.errorf(pp, 0, "invalid YAML: %v", err)
				return
			}
			for _, d := range docs {
				patches = append(patches, patch{file: pp, line: d.Line, doc: d, json: json || d.Kind == yaml.SequenceNode, target: p.Target})
			}
		}
	}
	for _, p := range k.PatchesStrategicMerge {
		if strings.Contains(p, "\n") || strings.Contains(p, ":") && !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml") {
			read(patchRef{Patch: p}, false)
		} else {
			read(patchRef{Path: p}, false)
		}
	}
	for _, p := range k.Patches {
		read(p, false)
	}
	for _, p := range k.PatchesJSON6902 {
		read(p, true)
	}
	for _, p := range patches {
		b.apply(p, objs)
	}
	labels, templateLabels := k.labels()
	renamed := map[string]string{} // kind/old name -> new name, for references
	for i := range objs {
		o := &objs[i]
		kind := scalar(yamlpos.Value(o.Node, "kind"))
		meta := ensureMap(o.Node, "metadata")
		if k.Namespace != "" && !clusterScoped[kind] {
			setScalar(meta, "namespace", k.Namespace)
		}
		if (k.NamePrefix != "" || k.NameSuffix != "") && kind != "Namespace" && kind != "CustomResourceDefinition" {
			old := scalar(yamlpos.Value(meta, "name"))
			if old != "" {
				o.names = append(o.names, old)
				setScalar(meta, "name", k.NamePrefix+old+k.NameSuffix)
				renamed[kind+"/"+old] = k.NamePrefix + old + k.NameSuffix
			}
		}
		setAll(meta, "labels", labels)
		setAll(meta, "annotations", k.CommonAnnotations)
		if tmpl := podTemplate(o.Node); tmpl != nil {
			tmeta := ensureMap(tmpl, "metadata")
			setAll(tmeta, "labels", templateLabels)
			setAll(tmeta, "annotations", k.CommonAnnotations)
		}
	}
	if len(renamed) > 0 {
		for i := range objs {
			renameReferences(objs[i].Node, renamed)
		}
	}
	for _, r := range k.Replicas {
		found := false
		for i := range objs {
			if objs[i].named(r.Name) && scalableKinds[scalar(yamlpos.Value(objs[i].Node, "kind"))] {
				setInt(ensureMap(objs[i].Node, "spec"), "replicas", r.Count)
				found = true
			}
		}
		if !found {
			b.warns = append(b.warns, parser.Error{File: file, Line: k.line(r.Name), Message: fmt.Sprintf("replicas: no Deployment, StatefulSet or ReplicaSet named %q among the resources", r.Name)})
		}
	}
	b.replace(file, dir, k, objs)
	if len(k.Vars) > 0 {
		b.warns = append(b.warns, parser.Error{File: file, Line: k.Vars[0].Line,
			Message: "vars (deprecated in kustomize; replacements took their place) are not substituted: fields that use $(VAR) keep it"})
	}
	return objs
}

// labels are the labels the kustomization sets on its objects, and those it also sets on their
// pod templates (commonLabels always; labels pairs with includeTemplates or includeSelectors).
func (k *Kustomization) labels() (objects, templates map[string]string) {
	objects, templates = map[string]string{}, map[string]string{}
	for key, v := range k.CommonLabels {
		objects[key], templates[key] = v, v
	}
	for _, l := range k.Labels {
		for key, v := range l.Pairs {
			objects[key] = v
			if l.IncludeTemplates || l.IncludeSelectors {
				templates[key] = v
			}
		}
	}
	return objects, templates
}

// Refs are the local files and directories a kustomization in dir names: its patch files, and
// the paths of its resources, bases and components (files or kustomization directories).
// Inline and remote entries are left out.
func (k *Kustomization) Refs(dir string) (patches, resources []string) {
	local := func(p string) (string, bool) {
		if p == "" || strings.Contains(p, "\n") || IsRemote(p) {
			return "", false
		}
		return join(dir, p), true
	}
	for _, p := range k.PatchesStrategicMerge {
		if f, ok := local(p); ok {
			patches = append(patches, f)
		}
	}
	for _, p := range append(append([]patchRef{}, k.Patches...), k.PatchesJSON6902...) {
		if f, ok := local(p.Path); ok {
			patches = append(patches, f)
		}
	}
	for _, r := range append(append(append([]string{}, k.Resources...), k.Bases...), k.Components...) {
		if f, ok := local(r); ok {
			resources = append(resources, f)
		}
	}
	return patches, resources
}

// clusterScoped kinds take no namespace.
var clusterScoped = map[string]bool{"Namespace": true, "ClusterRole": true, "ClusterRoleBinding": true, "CustomResourceDefinition": true,
	"NodePool": true, "EC2NodeClass": true, "PriorityClass": true, "StorageClass": true, "PersistentVolume": true, "DeviceClass": true, "RuntimeClass": true}

// scalableKinds are those kustomize's replicas field sets.
var scalableKinds = map[string]bool{"Deployment": true, "StatefulSet": true, "ReplicaSet": true, "ReplicationController": true}

// named reports whether the object has, or had before a rename, the name.
func (o *Object) named(name string) bool {
	if scalar(yamlpos.Value(yamlpos.Value(o.Node, "metadata"), "name")) == name {
		return true
	}
	for _, n := range o.names {
		if n == name {
			return true
		}
	}
	return false
}

// matches reports whether a target selects the object.
func (o *Object) matches(t *target) bool {
	if !t.compiled {
		t.kind, t.name, t.namespace, t.compiled = compilePattern(t.Kind), compilePattern(t.Name), compilePattern(t.Namespace), true
	}
	meta := yamlpos.Value(o.Node, "metadata")
	if !t.kind.match(scalar(yamlpos.Value(o.Node, "kind"))) {
		return false
	}
	if t.Name != "" && !t.name.match(scalar(yamlpos.Value(meta, "name"))) && !slices.ContainsFunc(o.names, t.name.match) {
		return false
	}
	if !t.namespace.match(scalar(yamlpos.Value(meta, "namespace"))) {
		return false
	}
	group, version, _ := strings.Cut(scalar(yamlpos.Value(o.Node, "apiVersion")), "/")
	if version == "" {
		group, version = "", group
	}
	if t.Group != "" && t.Group != group || t.Version != "" && t.Version != version {
		return false
	}
	if t.LabelSelector != "" {
		labels := yamlpos.Value(meta, "labels")
		for _, term := range strings.Split(t.LabelSelector, ",") {
			key, want, eq := strings.Cut(strings.TrimSpace(term), "=")
			got := yamlpos.Value(labels, strings.TrimSpace(key))
			if got == nil || eq && scalar(got) != strings.TrimSpace(strings.TrimPrefix(want, "=")) {
				return false
			}
		}
	}
	return true
}

// apply applies one patch to the objects it selects: its target, or (a strategic merge patch
// without one) the object of its kind and name.
func (b *builder) apply(p patch, objs []Object) {
	t := p.target
	if t == nil {
		if p.json {
			b.errorf(p.file, p.line, "a JSON 6902 patch needs a target")
			return
		}
		meta := yamlpos.Value(p.doc, "metadata")
		t = &target{Kind: regexp.QuoteMeta(scalar(yamlpos.Value(p.doc, "kind"))), Name: regexp.QuoteMeta(scalar(yamlpos.Value(meta, "name")))}
		if ns := scalar(yamlpos.Value(meta, "namespace")); ns != "" {
			t.Namespace = regexp.QuoteMeta(ns)
		}
		if t.Kind == "" || t.Name == "" {
			b.errorf(p.file, p.line, "a strategic merge patch without a target needs kind and metadata.name")
			return
		}
	}
	applied := false
	for i := range objs {
		if !objs[i].matches(t) {
			continue
		}
		applied = true
		if p.json {
			if err := applyJSON6902(objs[i].Node, p.doc); err != nil {
				b.errorf(p.file, p.line, "%v", err)
				return
			}
			continue
		}
		doc := p.doc
		if p.target != nil {
			// With a target, the patch's own kind and name do not select and are not applied.
			doc = withoutIdentity(doc)
		}
		if merged := strategicMerge(objs[i].Node, doc, "", builtinGroups[apiGroup(objs[i].Node)]); merged != nil {
			*objs[i].Node = *merged
		}
	}
	if !applied {
		scope := b.scope
		if scope == "" {
			scope = "the kustomization's resources"
		}
		b.warns = append(b.warns, parser.Error{File: p.file, Line: p.line, Message: "this patch matches no object among " + scope + " and is not applied"})
	}
}

// builtinGroups are the API groups of Kubernetes' own kinds, whose schemas kustomize knows: their
// named lists (containers, volumes, env, ...) merge item by item. A custom resource (a
// PyTorchJob, a RayCluster) has no schema there, and kustomize replaces its lists whole.
var builtinGroups = map[string]bool{"": true, "apps": true, "batch": true, "autoscaling": true, "policy": true,
	"networking.k8s.io": true, "rbac.authorization.k8s.io": true, "scheduling.k8s.io": true, "storage.k8s.io": true,
	"node.k8s.io": true, "resource.k8s.io": true}

// apiGroup is an object's API group ("" for the core group, "apps" for apps/v1).
func apiGroup(n *yaml.Node) string {
	group, _, found := strings.Cut(scalar(yamlpos.Value(n, "apiVersion")), "/")
	if !found {
		return ""
	}
	return group
}

// withoutIdentity is a patch document without kind, apiVersion and metadata.name.
func withoutIdentity(doc *yaml.Node) *yaml.Node {
	if doc.Kind != yaml.MappingNode {
		return doc
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: doc.Tag, Line: doc.Line}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		switch doc.Content[i].Value {
		case "kind", "apiVersion":
			continue
		case "metadata":
			m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for j := 0; j+1 < len(doc.Content[i+1].Content); j += 2 {
				if doc.Content[i+1].Content[j].Value != "name" {
					m.Content = append(m.Content, doc.Content[i+1].Content[j], doc.Content[i+1].Content[j+1])
				}
			}
			out.Content = append(out.Content, doc.Content[i], m)
			continue
		}
		out.Content = append(out.Content, doc.Content[i], doc.Content[i+1])
	}
	return out
}

// podTemplate is the pod template of a workload (spec.template, or a CronJob's
// spec.jobTemplate.spec.template), nil for other objects.
func podTemplate(n *yaml.Node) *yaml.Node {
	spec := yamlpos.Value(n, "spec")
	if t := yamlpos.Value(spec, "template"); t != nil && t.Kind == yaml.MappingNode {
		return t
	}
	if t := yamlpos.Value(yamlpos.Value(yamlpos.Value(spec, "jobTemplate"), "spec"), "template"); t != nil && t.Kind == yaml.MappingNode {
		return t
	}
	return nil
}

// renameReferences points the references gpuguard follows at the renamed objects, as
// kustomize's name references do: an autoscaler's scaleTargetRef (HorizontalPodAutoscaler, KEDA
// ScaledObject) and a pod's DRA claims (resourceClaimTemplateName, resourceClaimName), wherever
// its pod spec sits.
func renameReferences(n *yaml.Node, renamed map[string]string) {
	if ref := yamlpos.Value(yamlpos.Value(n, "spec"), "scaleTargetRef"); ref != nil {
		kind := scalar(yamlpos.Value(ref, "kind"))
		if kind == "" {
			kind = "Deployment"
		}
		if to, ok := renamed[kind+"/"+scalar(yamlpos.Value(ref, "name"))]; ok {
			setScalar(ref, "name", to)
		}
	}
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		for i, c := range n.Content {
			if n.Kind == yaml.MappingNode && i%2 == 1 {
				kind := claimKinds[n.Content[i-1].Value]
				if to, ok := renamed[kind+"/"+scalar(c)]; ok && kind != "" {
					n.Content[i] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: to, Line: c.Line, Column: c.Column}
					continue
				}
			}
			walk(c)
		}
	}
	walk(n)
	// A Flux HelmRelease's values references, which Flux's documentation has kustomize rename
	// with a nameReference configuration.
	if yamlpos.Value(n, "kind") != nil && scalar(yamlpos.Value(n, "kind")) == "HelmRelease" {
		if from := yamlpos.Value(yamlpos.Value(n, "spec"), "valuesFrom"); from != nil && from.Kind == yaml.SequenceNode {
			for _, ref := range from.Content {
				if to, ok := renamed[scalar(yamlpos.Value(ref, "kind"))+"/"+scalar(yamlpos.Value(ref, "name"))]; ok {
					setScalar(ref, "name", to)
				}
			}
		}
	}
}

// claimKinds are the fields of a pod spec that name a DRA object, and its kind.
var claimKinds = map[string]string{"resourceClaimTemplateName": "ResourceClaimTemplate", "resourceClaimName": "ResourceClaim"}
