package kubernetes

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	"go.yaml.in/yaml/v3"
)

// A ClusterClass customizes its templates with inline patches: JSON patches (add, replace,
// remove under /spec) whose value is literal, a variable (a path into the Cluster's variables,
// `httpProxy.url`, `dnsServers[0]`) or a Go template over the variables, each patch enabled when
// its enabledIf template renders "true". This file evaluates them, offline and bounded. Cluster
// API's book, "Writing a ClusterClass" (docs/book/src/tasks/experimental-features/cluster-class/
// write-clusterclass.md, read 2026-11-23), and api/core/v1beta2/clusterclass_types.go give the
// rules followed here.

// templateOutputLimit bounds what one template may write: a patch value is a field or two.
const templateOutputLimit = 64 << 10

// errTemplateTooLong stops a template whose output passes templateOutputLimit.
var errTemplateTooLong = errors.New("template output is over 64 KiB")

type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > templateOutputLimit {
		return 0, errTemplateTooLong
	}
	return b.Buffer.Write(p)
}

// templateFuncs are the functions a patch template may call. Cluster API offers Sprig's
// deterministic functions; gpuguard implements the few that choose or spell a value, and a
// template calling any other leaves its patch unapplied, said where it matters.
var templateFuncs = template.FuncMap{
	"default": func(def any, v ...any) any {
		if len(v) == 0 || empty(v[0]) {
			return def
		}
		return v[0]
	},
	"coalesce": func(v ...any) any {
		for _, x := range v {
			if !empty(x) {
				return x
			}
		}
		return nil
	},
	"empty": empty,
	"quote": func(v ...any) string {
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = strconv.Quote(fmt.Sprint(x))
		}
		return strings.Join(parts, " ")
	},
	"upper":   strings.ToUpper,
	"lower":   strings.ToLower,
	"trim":    strings.TrimSpace,
	"replace": func(old, new, s string) string { return strings.ReplaceAll(s, old, new) },
	"toString": func(v any) string {
		return fmt.Sprint(v)
	},
}

// empty is Sprig's notion of an unset value: nil, zero, false, "" or an empty collection.
func empty(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Array, reflect.String:
		return rv.Len() == 0
	case reflect.Bool:
		return !rv.Bool()
	case reflect.Int, reflect.Int64, reflect.Int32:
		return rv.Int() == 0
	case reflect.Float64, reflect.Float32:
		return rv.Float() == 0
	}
	return false
}

// renderTemplate runs one patch template over the variables. A template that could run
// without end (a range over a number, a template that calls templates) is refused rather than
// run: the ClusterClass comes from the pull request.
func renderTemplate(text string, data map[string]any, cache templates) (string, error) {
	t, err := cache.parse(text)
	if err != nil {
		return "", err
	}
	var out limitedBuffer
	if err := t.Execute(&out, data); err != nil {
		return "", err
	}
	return out.String(), nil
}

// templates holds each patch template parsed once (a ClusterClass's templates run for every
// worker of every Cluster built from it); a nil one parses every time.
type templates map[string]parsedTemplate

type parsedTemplate struct {
	t   *template.Template
	err error
}

func (c templates) parse(text string) (*template.Template, error) {
	if p, ok := c[text]; ok {
		return p.t, p.err
	}
	t, err := template.New("patch").Funcs(templateFuncs).Parse(text)
	if err == nil {
		for _, tt := range t.Templates() {
			if tt.Tree == nil {
				continue
			}
			if err = boundedTemplate(tt.Tree.Root); err != nil {
				t = nil
				break
			}
		}
	}
	if c != nil {
		c[text] = parsedTemplate{t, err}
	}
	return t, err
}

// boundedTemplate refuses the template constructs whose cost the data does not bound.
func boundedTemplate(n parse.Node) error {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := boundedTemplate(c); err != nil {
				return err
			}
		}
	case *parse.IfNode:
		return boundedBranch(&n.BranchNode)
	case *parse.WithNode:
		return boundedBranch(&n.BranchNode)
	case *parse.RangeNode:
		// Since Go 1.22 a range may run over an integer, from the template or from a variable's
		// value, as many times as it says: no range is run.
		return errors.New("a template with a range is not evaluated")
	case *parse.TemplateNode:
		return errors.New("a template that calls a template is not evaluated")
	}
	return nil
}

func boundedBranch(b *parse.BranchNode) error {
	if err := boundedTemplate(b.List); err != nil {
		return err
	}
	if b.ElseList != nil {
		return boundedTemplate(b.ElseList)
	}
	return nil
}

// lookupVariable reads a variable path: a name, then `.field` and `[i]` steps.
func lookupVariable(vars map[string]any, path string) (any, error) {
	var cur any = vars
	rest := path
	for rest != "" {
		var step string
		switch {
		case strings.HasPrefix(rest, "["):
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("variable path %q: unclosed [", path)
			}
			i, err := strconv.Atoi(rest[1:end])
			list, ok := cur.([]any)
			if err != nil || !ok || i < 0 || i >= len(list) {
				return nil, fmt.Errorf("variable %s has no element %s", path, rest[:end+1])
			}
			cur, rest = list[i], strings.TrimPrefix(rest[end+1:], ".")
			continue
		default:
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			step, rest = rest[:end], strings.TrimPrefix(rest[end:], ".")
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("variable %s: %s is not an object", path, step)
		}
		v, ok := m[step]
		if !ok {
			return nil, fmt.Errorf("variable %s is not set and has no default", path)
		}
		cur = v
	}
	return cur, nil
}

// applyJSONPatch applies one operation to a template's spec. path is the patch's whole path,
// which Cluster API requires to start with /spec/.
func applyJSONPatch(spec any, op, path string, value any) (any, error) {
	if !strings.HasPrefix(path, "/spec/") {
		return spec, fmt.Errorf("path %s is not under /spec/", path)
	}
	var toks []string
	for _, t := range strings.Split(strings.TrimPrefix(path, "/spec/"), "/") {
		toks = append(toks, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
	}
	switch op {
	case "add", "replace", "remove":
	default:
		return spec, fmt.Errorf("op %q is not add, replace or remove", op)
	}
	if spec == nil {
		spec = map[string]any{}
	}
	return patchAt(spec, toks, op, value)
}

func patchAt(node any, toks []string, op string, value any) (any, error) {
	tok, last := toks[0], len(toks) == 1
	switch n := node.(type) {
	case map[string]any:
		if last {
			if op == "remove" {
				delete(n, tok)
			} else {
				n[tok] = value
			}
			return n, nil
		}
		child, ok := n[tok]
		if !ok || child == nil {
			if op != "add" {
				return n, fmt.Errorf("%s: no field %s", op, tok)
			}
			child = map[string]any{}
		}
		c, err := patchAt(child, toks[1:], op, value)
		n[tok] = c
		return n, err
	case []any:
		if tok == "-" && last && op == "add" {
			return append(n, value), nil
		}
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i > len(n) || (i == len(n) && !(last && op == "add")) {
			return n, fmt.Errorf("%s: no element %s", op, tok)
		}
		if last {
			switch op {
			case "add":
				return append(n[:i], append([]any{value}, n[i:]...)...), nil
			case "remove":
				return append(n[:i], n[i+1:]...), nil
			}
			n[i] = value
			return n, nil
		}
		c, err := patchAt(n[i], toks[1:], op, value)
		n[i] = c
		return n, err
	}
	return node, fmt.Errorf("%s: %s is inside a value that is not an object or a list", op, tok)
}

// nodeValue turns a YAML node into plain values (maps, lists, scalars).
func nodeValue(n *yaml.Node) (any, error) {
	if n == nil || n.Kind == 0 {
		return nil, nil
	}
	var v any
	err := n.Decode(&v)
	return v, err
}

// valueNode turns plain values (as nodeValue makes them) back into a YAML node, built directly:
// yaml.v3's Node.Encode writes the text out and parses it again.
func valueNode(v any) (yaml.Node, error) {
	n, err := plainNode(v, 0)
	if err != nil {
		return yaml.Node{}, err
	}
	return *n, nil
}

func plainNode(v any, depth int) (*yaml.Node, error) {
	if depth > 256 {
		return nil, errors.New("value nested too deep")
	}
	scalar := func(tag, value string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value} }
	switch x := v.(type) {
	case nil:
		return scalar("!!null", "null"), nil
	case string:
		return scalar("!!str", x), nil
	case bool:
		return scalar("!!bool", strconv.FormatBool(x)), nil
	case int:
		return scalar("!!int", strconv.Itoa(x)), nil
	case int64:
		return scalar("!!int", strconv.FormatInt(x, 10)), nil
	case uint64:
		return scalar("!!int", strconv.FormatUint(x, 10)), nil
	case float64:
		return scalar("!!float", strconv.FormatFloat(x, 'g', -1, 64)), nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, c := range x {
			cn, err := plainNode(c, depth+1)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, cn)
		}
		return n, nil
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			cn, err := plainNode(x[k], depth+1)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, scalar("!!str", k), cn)
		}
		return n, nil
	}
	var n yaml.Node // a value of another type (a timestamp): yaml.v3 writes it
	err := n.Encode(v)
	return &n, err
}
