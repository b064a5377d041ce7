package kubernetes

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/yamlpos"
	"github.com/gpuguard/gpuguard/parser"
)

// MaxDocuments bounds the documents read from one file.
const MaxDocuments = 100000

// objectMeta is the part of metadata gpuguard reads.
type objectMeta struct {
	Name string `yaml:"name"`
	// GenerateName, when set, is how the object's real name starts: Cluster API names the
	// objects of a managed topology so, with a random suffix (gpuguard's stand-ins set it).
	GenerateName string            `yaml:"-"`
	Namespace    string            `yaml:"namespace"`
	Labels       map[string]string `yaml:"labels"`
	Annotations  map[string]string `yaml:"annotations"`
}

// object is one decoded manifest document.
type object struct {
	APIVersion string      `yaml:"apiVersion"`
	Kind       string      `yaml:"kind"`
	Metadata   objectMeta  `yaml:"metadata"`
	Spec       yaml.Node   `yaml:"spec"`
	Items      []yaml.Node `yaml:"items"`

	file string
	root string // the kustomization or chart that deploys it; "" for a manifest read as it stands
	note string // said on every resource built from it
	line int    // line of the document in the file
	// doc is the document's node, kept only for kinds whose fields are not all under spec
	// (KAITO's Workspace keeps resource and tuning beside metadata: kaito.go).
	doc    *yaml.Node
	offset int // lines before the document's first line, added to node lines
	// depth is how many workloads hold this one (a Katib trial's, an AppWrapper component's):
	// 0 for a document's own object.
	depth int
}

// maxEmbedded is how deep workloads may hold workloads. Real ones nest once or twice; a YAML
// alias that holds the object it is in would nest forever.
const maxEmbedded = 8

// embedded decodes a whole object held in n (a Katib trialSpec, an AppWrapper component's
// template), in o's file and namespace unless it names its own.
func (o *object) embedded(n *yaml.Node, field string) (*object, error) {
	line := o.lineOf(n)
	if o.depth >= maxEmbedded {
		return nil, lineError{line: line, err: fmt.Errorf("%s: workloads nested more than %d deep (a YAML alias that holds its own object?)", field, maxEmbedded)}
	}
	if n.Kind != yaml.MappingNode {
		return nil, lineError{line: line, err: fmt.Errorf("%s is not an object", field)}
	}
	inner := &object{file: o.file, root: o.root, note: o.note, offset: o.offset, line: line, depth: o.depth + 1}
	if err := n.Decode(inner); err != nil {
		return nil, lineError{line: line, err: fmt.Errorf("%s: %w", field, err)}
	}
	if inner.Metadata.Namespace == "" {
		inner.Metadata.Namespace = o.Metadata.Namespace
	}
	return inner, nil
}

// rootName is what the object's resources report as their root: its kustomization, or its file.
func (o *object) rootName() string {
	if o.root != "" {
		return o.root
	}
	return o.file
}

func (o *object) namespace() string {
	if o.Metadata.Namespace == "" {
		return "default"
	}
	return o.Metadata.Namespace
}

// address is Kind/namespace/name, or Kind/name for the cluster-scoped kinds gpuguard reads.
func (o *object) address() string {
	if o.Metadata.Namespace == "" && clusterScoped[o.Kind] {
		return o.Kind + "/" + o.Metadata.Name
	}
	return o.Kind + "/" + o.namespace() + "/" + o.Metadata.Name
}

// clusterScoped are the kinds gpuguard reads that have no namespace: naming one "default" in a
// message would point at an object that does not exist.
var clusterScoped = map[string]bool{
	"NodePool": true, "ComputeClass": true, "ClusterQueue": true, "ResourceFlavor": true,
	"DeviceClass": true, "CompositeResourceDefinition": true, "Composition": true, "EC2NodeClass": true, "RuntimeClass": true,
}

// lineOf turns a node's line into a line of the file.
// atLine is ", line N" for a node of o, for a note that points into the object; "" when o was
// not read from a file of the user's (Terraform declares it: the lines are those of the
// document converted from its block, which the user never sees), or when gpuguard wrote the
// node itself (the port a Slinky NodeSet's operator gives slurmd), which no line holds.
func (o *object) atLine(n *yaml.Node) string {
	if strings.HasPrefix(o.file, "\x00") || n != nil && n.Line == 0 {
		return ""
	}
	return fmt.Sprintf(", line %d", o.lineOf(n))
}

func (o *object) lineOf(n *yaml.Node) int {
	if n == nil || n.Line == 0 {
		return o.line
	}
	return n.Line + o.offset
}

// File is one decoded manifest file: its objects and the documents that could not be read.
type File struct {
	Name     string
	objects  []*object
	Errors   []parser.Error
	Warnings []parser.Error
	root     string
	note     string
}

// FromNodes makes the File of objects a kustomization built from the manifest file name (or a
// chart rendered and post renderers patched): each node is one object, its lines lines of that
// file. root names the kustomization (or release), reported as the root of the resources built
// from them, and note is added to each resource built from them.
func FromNodes(name, root, note string, nodes []*yaml.Node) *File {
	return fromNodes(name, root, note, nodes, true)
}

// FromDeployedNodes is FromNodes for objects a GitOps tool deploys: as written, without the
// defaults of Flux variables (the tool substituted them, or leaves them as written).
func FromDeployedNodes(name, root, note string, nodes []*yaml.Node) *File {
	return fromNodes(name, root, note, nodes, false)
}

func fromNodes(name, root, note string, nodes []*yaml.Node, defaults bool) *File {
	f := &File{Name: name, root: root, note: note}
	for _, n := range nodes {
		switch {
		case n == nil || n.Kind != yaml.MappingNode:
		case defaults:
			f.addDefaulted(n, 0)
		default:
			f.addObject(n, 0)
		}
	}
	return f
}

// OverrideNamespace puts every object of the file in namespace ns, whatever its manifest says (a
// kubectl_manifest's override_namespace).
func (f *File) OverrideNamespace(ns string) {
	for _, o := range f.objects {
		o.Metadata.Namespace = ns
	}
}

// LooksLikeManifest reports whether data (JSON or YAML) looks like a Kubernetes manifest: it has
// apiVersion and kind at the top level of some document.
func LooksLikeManifest(data []byte) bool {
	head := data
	if len(head) > 1<<16 {
		head = head[:1<<16]
	}
	if !utf8.Valid(head[:len(head)-utf8Trailing(head)]) {
		return false
	}
	return manifestKey.Match(head) && kindKey.Match(head)
}

var (
	manifestKey = regexp.MustCompile(`(?m)(^|[{,])\s*"?apiVersion"?\s*:`)
	kindKey     = regexp.MustCompile(`(?m)(^|[{,])\s*"?kind"?\s*:`)
	docStart    = regexp.MustCompile(`^---(\s.*)?$`)
)

// utf8Trailing is how many bytes at the end of b may be a cut multi-byte character.
func utf8Trailing(b []byte) int {
	for i := 1; i <= 3 && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}

type document struct {
	text  []byte
	first int // 1-based line of the document's first line
}

// splitDocuments cuts a YAML stream at "---" and "..." lines in column 0.
func splitDocuments(data []byte) []document {
	var docs []document
	start, startLine := 0, 1
	line := 1
	for pos := 0; pos <= len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data) + 1
		lineEnd := len(data)
		if end >= 0 {
			lineEnd = pos + end
			next = lineEnd + 1
		}
		text := bytes.TrimRight(data[pos:lineEnd], "\r")
		if docStart.Match(text) || string(text) == "..." {
			docs = append(docs, document{text: data[start:pos], first: startLine})
			start, startLine = next, line+1
			if next > len(data) {
				start = len(data)
			}
			if rest := bytes.TrimSpace(text[3:]); len(rest) > 0 && rest[0] != '#' && string(text) != "..." {
				// "--- kind: Pod" puts content on the marker line itself.
				start, startLine = pos+3, line
			}
		}
		pos = next
		line++
	}
	docs = append(docs, document{text: data[start:], first: startLine})
	return docs
}

// Decode reads a manifest stream. It never fails as a whole: each broken document becomes an
// error with its line, and the others are read.
func Decode(name string, data []byte) *File {
	return DecodeRendered(name, "", "", data)
}

// DecodeRendered reads a manifest stream something rendered (a Helm chart's template): root
// names what rendered it, reported as the resources' root, and note is added to each resource
// built from it.
func DecodeRendered(name, root, note string, data []byte) *File {
	f := &File{Name: name, root: root, note: note}
	if e := parser.CheckText(name, data, "a Kubernetes manifest"); e != nil {
		f.Errors = append(f.Errors, *e)
		return f
	}
	docs := splitDocuments(data)
	if len(docs) > MaxDocuments {
		f.Errors = append(f.Errors, parser.Error{File: name, Message: fmt.Sprintf("%d documents: only the first %d are read", len(docs), MaxDocuments)})
		docs = docs[:MaxDocuments]
	}
	// Documents are independent: decode them concurrently, then keep file order.
	parts := make([]File, len(docs))
	workers := runtime.GOMAXPROCS(0)
	if len(docs) < 64 {
		workers = 1
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(docs); i += workers {
				parts[i].Name, parts[i].root, parts[i].note = name, f.root, f.note
				parts[i].decodeDocument(docs[i])
			}
		}(w)
	}
	wg.Wait()
	for i := range parts {
		f.objects = append(f.objects, parts[i].objects...)
		f.Errors = append(f.Errors, parts[i].Errors...)
		f.Warnings = append(f.Warnings, parts[i].Warnings...)
	}
	return f
}

func (f *File) decodeDocument(d document) {
	if len(bytes.TrimSpace(d.text)) == 0 {
		return
	}
	offset := d.first - 1
	var root yaml.Node
	if err := yaml.Unmarshal(d.text, &root); err != nil {
		e := yamlError(f.Name, offset, d.first, err)
		var note string
		e.Line, note = yamlpos.Relocate(d.text, e.Line, offset)
		e.Message += note
		f.Errors = append(f.Errors, e)
		return
	}
	if len(root.Content) == 0 {
		return // only comments
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		f.Errors = append(f.Errors, parser.Error{File: f.Name, Line: doc.Line + offset, Message: "document is not a mapping: not a Kubernetes object"})
		return
	}
	if f.root == "" && bytes.Contains(d.text, []byte("${")) {
		// A manifest read on its own; what a tool rendered or deploys is read as written.
		f.addDefaulted(doc, offset)
		return
	}
	f.addObject(doc, offset)
}

// addDefaulted adds the object n with the defaults of its Flux post-build variables in place
// (fluxDefaults), and a warning that names them.
func (f *File) addDefaulted(n *yaml.Node, offset int) {
	used := fluxDefaults(n)
	before := len(f.objects)
	f.addObject(n, offset)
	if len(used) == 0 || len(f.objects) == before {
		return
	}
	o := f.objects[before]
	f.Warnings = append(f.Warnings, parser.Error{File: f.Name, Line: o.line, Message: fmt.Sprintf(
		"%s: Flux post-build variables priced with their defaults (%s): no Flux Kustomization among the files read deploys this manifest, and the one that does may set them; check the repository's root with it",
		o.address(), strings.Join(used, ", "))})
}

func (f *File) addObject(n *yaml.Node, offset int) {
	o := &object{file: f.Name, root: f.root, note: f.note, offset: offset, line: n.Line + offset}
	if err := n.Decode(o); err != nil {
		f.Errors = append(f.Errors, yamlError(f.Name, offset, o.line, err))
		return
	}
	if o.Kind == "" || o.APIVersion == "" {
		// Not a Kubernetes object (a values file, a WorkloadProfile without apiVersion, ...).
		return
	}
	if group(o.APIVersion) == kaitoGroup || o.Spec.Kind == 0 {
		o.doc = n // KAITO's fields, or an object without spec (Rancher's machine configurations)
	}
	if strings.HasSuffix(o.Kind, "List") && len(o.Items) > 0 {
		for i := range o.Items {
			if o.Items[i].Kind == yaml.MappingNode {
				f.addObject(&o.Items[i], offset)
			}
		}
		return
	}
	f.objects = append(f.objects, o)
}

// yamlError turns a yaml.v3 error into an error at the right line of the file.
func yamlError(name string, offset, fallback int, err error) parser.Error {
	line, msg := yamlpos.Split(err)
	if line > 0 {
		line += offset
	} else {
		line = fallback
	}
	return parser.Error{File: name, Line: line, Message: "invalid YAML: " + msg + fluxHint(msg)}
}
