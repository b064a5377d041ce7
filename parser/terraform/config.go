package terraform

import (
	"fmt"
	"math/big"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/zclconf/go-cty/cty"

	"github.com/gpuguard/gpuguard/parser"
)

// moduleConfig is one module directory's declarations, before evaluation.
type moduleConfig struct {
	dir         string
	files       []*sourceFile
	variables   map[string]*variableDecl
	locals      map[string]*hcl.Attribute
	resources   []*resourceDecl
	byAddr      map[string]*resourceDecl // "type.name"
	data        map[string]*resourceDecl
	calls       []*moduleCall
	callsByName map[string]*moduleCall
	providers   []*providerDecl
	outputs     map[string]*hcl.Attribute
	moves       []moveDecl
}

// moveDecl is a moved block: addresses relative to its module.
type moveDecl struct {
	from, to string
}

type variableDecl struct {
	name     string
	typ      cty.Type
	defaults *typeexpr.Defaults
	dflt     hcl.Expression // nil when there is no default
	nullable bool
	rng      hcl.Range
}

type resourceDecl struct {
	typ, name    string
	rng          hcl.Range // the block header
	body         hcl.Body
	count        hcl.Expression
	forEach      hcl.Expression
	provider     string // "aws" or "aws.west"; empty for the default configuration of its type
	suppressions []parser.Suppression
}

func (r *resourceDecl) addr() string { return r.typ + "." + r.name }

type moduleCall struct {
	name      string
	source    string
	version   string // the version constraint of a registry module, as written
	rng       hcl.Range
	body      hcl.Body
	args      hcl.Attributes
	count     hcl.Expression
	forEach   hcl.Expression
	providers map[string]string // child name -> parent name ("aws" -> "aws.west")
	// suppressions above the call waive rules on the resources of a downloaded module, whose
	// files are not the user's to annotate.
	suppressions []parser.Suppression
}

type providerDecl struct {
	name  string // "aws", "google", "azurerm"
	alias string
	body  hcl.Body
	attrs hcl.Attributes
	rng   hcl.Range
}

func (p *providerDecl) key() string {
	if p.alias != "" {
		return p.name + "." + p.alias
	}
	return p.name
}

var fileSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "terraform"},
	{Type: "variable", LabelNames: []string{"name"}},
	{Type: "locals"},
	{Type: "output", LabelNames: []string{"name"}},
	{Type: "provider", LabelNames: []string{"name"}},
	{Type: "resource", LabelNames: []string{"type", "name"}},
	{Type: "data", LabelNames: []string{"type", "name"}},
	{Type: "module", LabelNames: []string{"name"}},
	{Type: "moved"}, {Type: "import"}, {Type: "removed"},
	{Type: "check", LabelNames: []string{"name"}},
}}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "type"}, {Name: "default"}, {Name: "description"}, {Name: "sensitive"}, {Name: "nullable"}, {Name: "ephemeral"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var resourceMetaSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "count"}, {Name: "for_each"}, {Name: "provider"}, {Name: "depends_on"}},
}

var moduleMetaSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "source", Required: true}, {Name: "version"}, {Name: "count"}, {Name: "for_each"}, {Name: "providers"}, {Name: "depends_on"}},
}

var outputSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "value"}, {Name: "description"}, {Name: "sensitive"}, {Name: "depends_on"}, {Name: "ephemeral"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "precondition"}},
}

// loadModule reads the module in dir (or the given files, for a single file or stdin). It
// returns nil when no file of the module could be parsed.
//
// Only child modules' files go through the run's Cache: a root module's files are read by one
// evaluation and become garbage after it, which keeps the heap of a large scan small.
func (l *loader) loadModule(dir string, files []string, stdin []byte, child bool) *moduleConfig {
	key := dir + "\x00" + strings.Join(files, "\x00")
	if m, ok := l.modules[key]; ok {
		return m
	}
	m := &moduleConfig{
		dir:         dir,
		variables:   map[string]*variableDecl{},
		locals:      map[string]*hcl.Attribute{},
		byAddr:      map[string]*resourceDecl{},
		data:        map[string]*resourceDecl{},
		callsByName: map[string]*moduleCall{},
		outputs:     map[string]*hcl.Attribute{},
	}
	l.modules[key] = m
	for _, name := range files {
		var sf *sourceFile
		switch {
		case stdin != nil:
			sf = l.parseFile(name, stdin, false)
		case l.generated[name] != nil:
			sf = l.parseFile(name, l.generated[name], false)
		default:
			sf = l.parseFile(name, nil, child)
		}
		if sf == nil || sf.file == nil {
			continue
		}
		m.files = append(m.files, sf)
		l.decodeFile(m, sf)
	}
	return m
}

func (l *loader) decodeFile(m *moduleConfig, sf *sourceFile) {
	content, _, diags := sf.file.Body.PartialContent(fileSchema)
	l.addDiags(diags)
	for _, b := range content.Blocks {
		switch b.Type {
		case "variable":
			l.decodeVariable(m, b)
		case "locals":
			attrs, diags := b.Body.JustAttributes()
			l.addDiags(diags)
			for name, a := range attrs {
				if prev, dup := m.locals[name]; dup {
					l.errs = append(l.errs, parser.Error{File: a.Range.Filename, Line: a.Range.Start.Line,
						Message: fmt.Sprintf("duplicate local value %q, first defined at %s:%d", name, prev.Range.Filename, prev.Range.Start.Line)})
					continue
				}
				m.locals[name] = a
			}
		case "output":
			oc, _, diags := b.Body.PartialContent(outputSchema)
			l.addDiags(diags)
			if a, ok := oc.Attributes["value"]; ok {
				m.outputs[b.Labels[0]] = a
			}
		case "provider":
			attrs, _ := b.Body.JustAttributes() // nested blocks (default_tags, features) are read on demand
			p := &providerDecl{name: b.Labels[0], body: b.Body, attrs: attrs, rng: b.DefRange}
			if a, ok := attrs["alias"]; ok {
				if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
					p.alias = v.AsString()
				}
			}
			m.providers = append(m.providers, p)
		case "resource", "data":
			l.decodeResource(m, sf, b)
		case "module":
			l.decodeModuleCall(m, sf, b)
		case "moved":
			l.decodeMoved(m, b)
		}
	}
}

// decodeMoved reads a moved block's from and to: references to resources, resource instances,
// module calls or module instances, written as in Terraform (`module.a["k"].aws_instance.b[0]`).
// A block gpuguard cannot read is skipped: it only helps a diff match objects.
func (l *loader) decodeMoved(m *moduleConfig, b *hcl.Block) {
	attrs, diags := b.Body.JustAttributes()
	if diags.HasErrors() {
		return
	}
	from, ok1 := movedAddress(attrs["from"])
	to, ok2 := movedAddress(attrs["to"])
	if ok1 && ok2 && from != to {
		m.moves = append(m.moves, moveDecl{from: from, to: to})
	}
}

// movedAddress writes a moved block's address in gpuguard's form: index keys as [0] and ["k"].
func movedAddress(a *hcl.Attribute) (string, bool) {
	if a == nil {
		return "", false
	}
	tr, diags := hcl.AbsTraversalForExpr(a.Expr)
	if diags.HasErrors() || len(tr) == 0 {
		return "", false
	}
	var sb strings.Builder
	for _, step := range tr {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			sb.WriteString(s.Name)
		case hcl.TraverseAttr:
			sb.WriteString("." + s.Name)
		case hcl.TraverseIndex:
			k := s.Key
			switch {
			case !k.IsKnown() || k.IsNull():
				return "", false
			case k.Type() == cty.Number:
				bf := k.AsBigFloat()
				n, acc := bf.Int64()
				if acc != big.Exact {
					return "", false
				}
				fmt.Fprintf(&sb, "[%d]", n)
			case k.Type() == cty.String:
				fmt.Fprintf(&sb, "[%q]", k.AsString())
			default:
				return "", false
			}
		default:
			return "", false
		}
	}
	return sb.String(), true
}

func (l *loader) decodeVariable(m *moduleConfig, b *hcl.Block) {
	name := b.Labels[0]
	vc, _, diags := b.Body.PartialContent(variableSchema)
	l.addDiags(diags)
	v := &variableDecl{name: name, typ: cty.DynamicPseudoType, nullable: true, rng: b.DefRange}
	if a, ok := vc.Attributes["type"]; ok {
		ty, defaults, diags := typeexpr.TypeConstraintWithDefaults(a.Expr)
		l.addDiags(diags)
		if !diags.HasErrors() {
			v.typ, v.defaults = ty, defaults
		}
	}
	if a, ok := vc.Attributes["default"]; ok {
		v.dflt = a.Expr
	}
	if a, ok := vc.Attributes["nullable"]; ok {
		if nv, d := a.Expr.Value(nil); !d.HasErrors() && nv.Type() == cty.Bool && nv.IsKnown() && !nv.IsNull() {
			v.nullable = nv.True()
		}
	}
	if prev, dup := m.variables[name]; dup {
		l.errs = append(l.errs, parser.Error{File: b.DefRange.Filename, Line: b.DefRange.Start.Line,
			Message: fmt.Sprintf("duplicate variable %q, first declared at %s:%d", name, prev.rng.Filename, prev.rng.Start.Line)})
		return
	}
	m.variables[name] = v
}

func (l *loader) decodeResource(m *moduleConfig, sf *sourceFile, b *hcl.Block) {
	r := &resourceDecl{typ: b.Labels[0], name: b.Labels[1], rng: b.DefRange, body: b.Body}
	meta, _, diags := b.Body.PartialContent(resourceMetaSchema)
	l.addDiags(diags)
	if a, ok := meta.Attributes["count"]; ok {
		r.count = a.Expr
	}
	if a, ok := meta.Attributes["for_each"]; ok {
		r.forEach = a.Expr
	}
	if r.count != nil && r.forEach != nil {
		l.errs = append(l.errs, parser.Error{File: b.DefRange.Filename, Line: b.DefRange.Start.Line,
			Message: fmt.Sprintf("%s %s.%s: count and for_each cannot both be set", b.Type, r.typ, r.name)})
		return
	}
	if a, ok := meta.Attributes["provider"]; ok {
		r.provider = providerRef(a.Expr)
	}
	if b.Type == "data" {
		m.data[r.addr()] = r
		return
	}
	r.suppressions = sf.suppressionsAbove(b.DefRange.Start.Line)
	if prev, dup := m.byAddr[r.addr()]; dup {
		l.errs = append(l.errs, parser.Error{File: b.DefRange.Filename, Line: b.DefRange.Start.Line,
			Message: fmt.Sprintf("duplicate resource %s, first declared at %s:%d", r.addr(), prev.rng.Filename, prev.rng.Start.Line)})
		return
	}
	m.resources = append(m.resources, r)
	m.byAddr[r.addr()] = r
}

// providerRef reads `provider = aws.west` (a bare reference, not a value).
func providerRef(expr hcl.Expression) string {
	tr, diags := hcl.AbsTraversalForExpr(expr)
	if diags.HasErrors() {
		// In JSON the reference is a string.
		if v, d := expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
			return v.AsString()
		}
		return ""
	}
	parts := []string{tr.RootName()}
	for _, s := range tr[1:] {
		if a, ok := s.(hcl.TraverseAttr); ok {
			parts = append(parts, a.Name)
		}
	}
	return strings.Join(parts, ".")
}

func (l *loader) decodeModuleCall(m *moduleConfig, sf *sourceFile, b *hcl.Block) {
	meta, rest, diags := b.Body.PartialContent(moduleMetaSchema)
	l.addDiags(diags)
	c := &moduleCall{name: b.Labels[0], rng: b.DefRange, body: b.Body, providers: map[string]string{},
		suppressions: sf.suppressionsAbove(b.DefRange.Start.Line)}
	if a, ok := meta.Attributes["source"]; ok {
		if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
			c.source = v.AsString()
		} else {
			l.errs = append(l.errs, parser.Error{File: a.Range.Filename, Line: a.Range.Start.Line, Message: fmt.Sprintf("module %q: source must be a literal string", c.name)})
			return
		}
	} else {
		return
	}
	if a, ok := meta.Attributes["version"]; ok {
		// Terraform takes only a literal string here; anything else leaves the version unknown.
		if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
			c.version = v.AsString()
		}
	}
	if a, ok := meta.Attributes["count"]; ok {
		c.count = a.Expr
	}
	if a, ok := meta.Attributes["for_each"]; ok {
		c.forEach = a.Expr
	}
	if a, ok := meta.Attributes["providers"]; ok {
		pairs, d := hcl.ExprMap(a.Expr)
		l.addDiags(d)
		for _, p := range pairs {
			k, v := providerRef(p.Key), providerRef(p.Value)
			if k != "" && v != "" {
				c.providers[k] = v
			}
		}
	}
	attrs, diags := rest.JustAttributes()
	// Nested blocks are not allowed in a module call; JustAttributes reports them. Keep only the
	// attributes when the body is native syntax with blocks, which Terraform rejects anyway.
	l.addDiags(diags)
	c.args = attrs
	if _, dup := m.callsByName[c.name]; dup {
		l.errs = append(l.errs, parser.Error{File: b.DefRange.Filename, Line: b.DefRange.Start.Line, Message: fmt.Sprintf("duplicate module call %q", c.name)})
		return
	}
	m.calls = append(m.calls, c)
	m.callsByName[c.name] = c
}

// isLocalSource reports whether a module source is a local path Terraform reads in place.
func isLocalSource(src string) bool {
	return strings.HasPrefix(src, "./") || strings.HasPrefix(src, "../") || src == "." || src == ".."
}

// childDir resolves a local module source against the calling module's directory.
func childDir(parentDir, src string) string {
	return filepath.Clean(filepath.Join(parentDir, filepath.FromSlash(src)))
}
