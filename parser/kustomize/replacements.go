package kustomize

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/yamlpos"
	"github.com/gpuguard/gpuguard/parser"
)

// Replacements copy a value from one object into fields of others: a ConfigMap's GPU type into a
// Deployment's node selector, a count into replicas. kustomize applies them after its other
// transformers; so does the builder. https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/replacements/

// replacement is one entry of a kustomization's replacements: inline, or in a file (path).
type replacement struct {
	Path    string              `yaml:"path"`
	Source  *replacementSource  `yaml:"source"`
	Targets []replacementTarget `yaml:"targets"`
}

type replacementSource struct {
	target    `yaml:",inline"`
	FieldPath string              `yaml:"fieldPath"`
	Options   *replacementOptions `yaml:"options"`
}

type replacementTarget struct {
	Select     *target             `yaml:"select"`
	Reject     []*target           `yaml:"reject"`
	FieldPaths []string            `yaml:"fieldPaths"`
	Options    *replacementOptions `yaml:"options"`
}

type replacementOptions struct {
	Delimiter string `yaml:"delimiter"`
	Index     int    `yaml:"index"`
	Create    bool   `yaml:"create"`
}

// maxFieldPathSegments bounds a field path: a path is a few keys deep, never thousands.
const maxFieldPathSegments = 64

// replace applies the kustomization's replacements to the objects, in order. A problem (a
// source that selects no object or several, a field path that does not resolve) is an error at
// the replacement's line, as kustomize build fails on it; the other replacements still apply.
func (b *builder) replace(file, dir string, k *Kustomization, objs []Object) {
	var all []replacement
	var lines []int
	for i, r := range k.Replacements {
		line := 0
		if i < len(k.replacementLines) {
			line = k.replacementLines[i]
		}
		if r.Path == "" {
			all, lines = append(all, r), append(lines, line)
			continue
		}
		if IsRemote(r.Path) {
			b.warns = append(b.warns, parser.Error{File: file, Line: line, Message: fmt.Sprintf("remote replacement %q is not fetched and not applied", r.Path)})
			continue
		}
		p := join(dir, r.Path)
		data, err := b.links.ReadFile(p, maxFile)
		if err != nil {
			b.errorf(file, line, "replacement %q: %v", r.Path, err)
			continue
		}
		b.files[p] = true
		var many []replacement
		var one replacement
		if err := yaml.Unmarshal(data, &many); err == nil {
			for range many {
				lines = append(lines, line)
			}
			all = append(all, many...)
		} else if err := yaml.Unmarshal(data, &one); err == nil {
			all, lines = append(all, one), append(lines, line)
		} else {
			b.errorf(p, 0, "invalid replacement: %v", err)
		}
	}
	for i, r := range all {
		if err := applyReplacement(r, objs); err != nil {
			b.errorf(file, lines[i], "replacement: %v", err)
		}
	}
}

// applyReplacement reads the source value and writes it into every selected target's fields.
func applyReplacement(r replacement, objs []Object) error {
	if r.Source == nil {
		return fmt.Errorf("no source")
	}
	var src *Object
	for i := range objs {
		if objs[i].matches(&r.Source.target) {
			if src != nil {
				return fmt.Errorf("source %s selects more than one object", describe(&r.Source.target))
			}
			src = &objs[i]
		}
	}
	if src == nil {
		return fmt.Errorf("source %s selects no object", describe(&r.Source.target))
	}
	fp := r.Source.FieldPath
	if fp == "" {
		fp = "metadata.name" // kustomize's default source field
	}
	nodes, err := fieldNodes(src.Node, fp, false)
	if err != nil || len(nodes) != 1 {
		return fmt.Errorf("source field %q of %s: %v", fp, describe(&r.Source.target), orNotOne(err, len(nodes)))
	}
	value := nodes[0]
	if o := r.Source.Options; o != nil && o.Delimiter != "" {
		parts := strings.Split(scalar(value), o.Delimiter)
		if o.Index < 0 || o.Index >= len(parts) {
			return fmt.Errorf("source field %q: index %d of %q split by %q is out of range", fp, o.Index, scalar(value), o.Delimiter)
		}
		value = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: parts[o.Index]}
	}
	size, written := nodeCount(value), 0
	for _, t := range r.Targets {
		if t.Select == nil {
			return fmt.Errorf("a target without select")
		}
		for i := range objs {
			o := &objs[i]
			if !o.matches(t.Select) || rejected(o, t.Reject) {
				continue
			}
			create := t.Options != nil && t.Options.Create
			for _, path := range t.FieldPaths {
				fields, err := fieldNodes(o.Node, path, create)
				if err != nil {
					return fmt.Errorf("target field %q of %s: %v", path, describe(t.Select), err)
				}
				for _, f := range fields {
					// A large source copied into many fields must not grow the objects without
					// bound (the JSON patch copy operation has the same limit).
					if written += size; written > maxNodes {
						return fmt.Errorf("target %s: the replacement copies more than %d nodes", describe(t.Select), maxNodes)
					}
					setField(f, value, t.Options)
				}
			}
		}
	}
	return nil
}

func rejected(o *Object, reject []*target) bool {
	for _, r := range reject {
		if r != nil && o.matches(r) {
			return true
		}
	}
	return false
}

func orNotOne(err error, n int) error {
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("not found")
	}
	return fmt.Errorf("matches %d fields", n)
}

func describe(t *target) string {
	var parts []string
	for _, p := range [][2]string{{"kind", t.Kind}, {"name", t.Name}, {"namespace", t.Namespace}, {"labelSelector", t.LabelSelector}} {
		if p[1] != "" {
			parts = append(parts, p[0]+"="+p[1])
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// setField writes the value into a target field: the whole node, or with a delimiter one part
// of the field's text.
func setField(f, value *yaml.Node, o *replacementOptions) {
	if o != nil && o.Delimiter != "" && value.Kind == yaml.ScalarNode {
		parts := strings.Split(f.Value, o.Delimiter)
		i := o.Index
		switch {
		case i < 0:
			parts = append([]string{value.Value}, parts...)
		case i >= len(parts):
			parts = append(parts, value.Value)
		default:
			parts[i] = value.Value
		}
		*f = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.Join(parts, o.Delimiter), Line: f.Line, Column: f.Column}
		return
	}
	line, column, tag := f.Line, f.Column, f.Tag
	*f = *deepCopy(value)
	f.Line, f.Column = line, column
	// A quoted number copied into a number field ("4" from a ConfigMap into replicas) keeps the
	// field's type: the API server would refuse a string there, so a configuration that deploys
	// never has one.
	if f.Kind == yaml.ScalarNode && f.Tag == "!!str" && (tag == "!!int" || tag == "!!float" || tag == "!!bool") {
		var probe yaml.Node
		if yaml.Unmarshal([]byte(f.Value), &probe) == nil && len(probe.Content) == 1 && probe.Content[0].Tag == tag {
			f.Tag, f.Style = tag, 0
		}
	}
}

func deepCopy(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, x := range n.Content {
		c.Content[i] = deepCopy(x)
	}
	return &c
}

// splitFieldPath splits a kustomize field path at dots outside brackets:
// spec.template.spec.containers.[name=vllm].resources.limits.[nvidia.com/gpu].
func splitFieldPath(p string) ([]string, error) {
	var out []string
	var cur strings.Builder
	depth := 0
	for _, r := range p {
		switch {
		case r == '[':
			depth++
			cur.WriteRune(r)
		case r == ']':
			depth--
			cur.WriteRune(r)
		case r == '.' && depth == 0:
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	out = append(out, cur.String())
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced brackets")
	}
	if len(out) > maxFieldPathSegments {
		return nil, fmt.Errorf("more than %d segments", maxFieldPathSegments)
	}
	for _, s := range out {
		if s == "" {
			return nil, fmt.Errorf("an empty segment")
		}
	}
	return out, nil
}

// fieldNodes resolves a field path to the nodes it names: a key ("spec", "[a.b/c]" for keys
// with dots), a list element by field ("[name=vllm]") or by index ("0"), every element ("*").
// With create, missing mapping keys along the way are made (a new leaf is an empty string).
func fieldNodes(root *yaml.Node, path string, create bool) ([]*yaml.Node, error) {
	segs, err := splitFieldPath(path)
	if err != nil {
		return nil, err
	}
	cur := []*yaml.Node{root}
	for si, seg := range segs {
		last := si == len(segs)-1
		var next []*yaml.Node
		for _, n := range cur {
			switch {
			case n.Kind == yaml.SequenceNode && seg == "*":
				next = append(next, n.Content...)
			case n.Kind == yaml.SequenceNode && strings.HasPrefix(seg, "[") && strings.Contains(seg, "="):
				k, v, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(seg, "["), "]"), "=")
				for _, e := range n.Content {
					if scalar(yamlpos.Value(e, k)) == v {
						next = append(next, e)
					}
				}
			case n.Kind == yaml.SequenceNode:
				i, err := strconv.Atoi(seg)
				if err != nil || i < 0 || i >= len(n.Content) {
					return nil, fmt.Errorf("%q does not select an element of the list", seg)
				}
				next = append(next, n.Content[i])
			case n.Kind == yaml.MappingNode:
				key := seg
				if strings.HasPrefix(seg, "[") && strings.HasSuffix(seg, "]") {
					key = seg[1 : len(seg)-1]
				}
				v := yamlpos.Value(n, key)
				if v == nil && create {
					v = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
					if last {
						v = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str"}
					}
					set(n, key, v)
				}
				if v != nil {
					next = append(next, v)
				}
			}
		}
		if len(next) == 0 {
			return nil, fmt.Errorf("%q not found", seg)
		}
		cur = next
	}
	return cur, nil
}

// nodeCount counts the nodes of n, stopping past maxNodes.
func nodeCount(n *yaml.Node) int {
	count := 0
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if count > maxNodes {
			return
		}
		count++
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return count
}
