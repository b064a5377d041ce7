package terraform

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/big"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/confine"
)

// yamlDecodeFunc is Terraform's yamldecode: one YAML document to a value, mappings becoming
// objects, sequences tuples, scalars strings, numbers, bools or null as their YAML 1.2 tags
// resolve (https://developer.hashicorp.com/terraform/language/functions/yamldecode). Anchors,
// aliases and merge keys (<<) work; a second document is an error, as in Terraform.
var yamlDecodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "src", Type: cty.String}},
	Type:   function.StaticReturnType(cty.DynamicPseudoType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return yamlDecode(args[0].AsString()) // an empty document is null, as in Terraform
	},
})

// maxYAMLNodes bounds a decoded document: aliases can make a small text expand enormously
// ("billion laughs").
const maxYAMLNodes = 1 << 20

func yamlDecode(src string) (cty.Value, error) {
	dec := yaml.NewDecoder(strings.NewReader(src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return cty.NullVal(cty.DynamicPseudoType), nil
		}
		return cty.NilVal, fmt.Errorf("yamldecode: %v", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return cty.NilVal, fmt.Errorf("yamldecode: only one YAML document is allowed")
	}
	budget := maxYAMLNodes
	return yamlToCty(&doc, &budget, 0)
}

func yamlToCty(n *yaml.Node, budget *int, depth int) (cty.Value, error) {
	*budget--
	if *budget < 0 || depth > 1000 {
		return cty.NilVal, fmt.Errorf("yamldecode: the document is too large once its aliases are expanded")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return cty.NullVal(cty.DynamicPseudoType), nil
		}
		return yamlToCty(n.Content[0], budget, depth+1)
	case yaml.AliasNode:
		return yamlToCty(n.Alias, budget, depth+1)
	case yaml.SequenceNode:
		vals := make([]cty.Value, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := yamlToCty(c, budget, depth+1)
			if err != nil {
				return cty.NilVal, err
			}
			vals = append(vals, v)
		}
		if len(vals) == 0 {
			return cty.EmptyTupleVal, nil
		}
		return cty.TupleVal(vals), nil
	case yaml.MappingNode:
		attrs := map[string]cty.Value{}
		if err := yamlMapping(n, attrs, budget, depth); err != nil {
			return cty.NilVal, err
		}
		if len(attrs) == 0 {
			return cty.EmptyObjectVal, nil
		}
		return cty.ObjectVal(attrs), nil
	case yaml.ScalarNode:
		return yamlScalar(n)
	}
	return cty.NilVal, fmt.Errorf("yamldecode: line %d: unsupported YAML node", n.Line)
}

// yamlMapping adds a mapping's pairs to attrs; merge keys (<<) add the merged mappings' pairs
// first, so the mapping's own keys win, as YAML's merge key specifies.
func yamlMapping(n *yaml.Node, attrs map[string]cty.Value, budget *int, depth int) error {
	own := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			var sources []*yaml.Node
			target := v
			if target.Kind == yaml.AliasNode {
				target = target.Alias
			}
			switch target.Kind {
			case yaml.MappingNode:
				sources = []*yaml.Node{target}
			case yaml.SequenceNode:
				sources = target.Content
			default:
				return fmt.Errorf("yamldecode: line %d: a merge key needs a mapping or a list of mappings", k.Line)
			}
			for _, src := range sources {
				if src.Kind == yaml.AliasNode {
					src = src.Alias
				}
				if src.Kind != yaml.MappingNode {
					return fmt.Errorf("yamldecode: line %d: a merge key needs a mapping or a list of mappings", k.Line)
				}
				merged := map[string]cty.Value{}
				if err := yamlMapping(src, merged, budget, depth+1); err != nil {
					return err
				}
				for mk, mv := range merged {
					if !own[mk] {
						attrs[mk] = mv
					}
				}
			}
			continue
		}
		key := k
		if key.Kind == yaml.AliasNode {
			key = key.Alias
		}
		if key.Kind != yaml.ScalarNode {
			return fmt.Errorf("yamldecode: line %d: only scalar mapping keys are supported", k.Line)
		}
		val, err := yamlToCty(v, budget, depth+1)
		if err != nil {
			return err
		}
		attrs[key.Value] = val
		own[key.Value] = true
	}
	return nil
}

func yamlScalar(n *yaml.Node) (cty.Value, error) {
	switch n.ShortTag() {
	case "!!null":
		return cty.NullVal(cty.DynamicPseudoType), nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return cty.NilVal, fmt.Errorf("yamldecode: line %d: %v", n.Line, err)
		}
		return cty.BoolVal(b), nil
	case "!!int":
		text := strings.ReplaceAll(n.Value, "_", "")
		if i, err := strconv.ParseInt(text, 0, 64); err == nil {
			return cty.NumberIntVal(i), nil
		}
		if bi, ok := new(big.Int).SetString(text, 0); ok { // beyond 64 bits: exact
			return cty.NumberVal(new(big.Float).SetInt(bi)), nil
		}
		return cty.NilVal, fmt.Errorf("yamldecode: line %d: %q is not a number", n.Line, n.Value)
	case "!!float":
		// Decimal text is kept exact (0.1 stays 0.1), as Terraform parses numbers.
		if v, err := cty.ParseNumberVal(strings.ReplaceAll(n.Value, "_", "")); err == nil {
			return v, nil
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return cty.NilVal, fmt.Errorf("yamldecode: line %d: %v", n.Line, err)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return cty.NilVal, fmt.Errorf("yamldecode: line %d: %s is not a number Terraform can hold", n.Line, n.Value)
		}
		return cty.NumberFloatVal(f), nil
	case "!!binary":
		return cty.NilVal, fmt.Errorf("yamldecode: line %d: binary values are not supported", n.Line)
	}
	return cty.StringVal(n.Value), nil
}

// yamlEncodeFunc is Terraform's yamlencode: a value as a YAML document (block style). The
// spacing may differ from Terraform's; the document means the same.
var yamlEncodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowNull: true, AllowDynamicType: true}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		if !v.IsWhollyKnown() {
			return cty.UnknownVal(cty.String), nil
		}
		native, err := ctyToNative(v)
		if err != nil {
			return cty.NilVal, err
		}
		var b bytes.Buffer
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(native); err != nil {
			return cty.NilVal, fmt.Errorf("yamlencode: %v", err)
		}
		return cty.StringVal(b.String()), nil
	},
})

// ctyToNative turns a known value into what the YAML encoder writes: maps with sorted keys,
// slices, strings, numbers (exact text), booleans and nil.
func ctyToNative(v cty.Value) (any, error) {
	v, _ = v.Unmark()
	if v.IsNull() {
		return nil, nil
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return v.AsString(), nil
	case ty == cty.Bool:
		return v.True(), nil
	case ty == cty.Number:
		bf := v.AsBigFloat()
		if bf.IsInt() {
			if i, acc := bf.Int64(); acc == big.Exact {
				return i, nil
			}
		}
		f, _ := bf.Float64()
		return f, nil
	case ty.IsObjectType() || ty.IsMapType():
		m := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			n, err := ctyToNative(e)
			if err != nil {
				return nil, err
			}
			m[k.AsString()] = n
		}
		return m, nil
	case ty.IsTupleType() || ty.IsListType() || ty.IsSetType():
		out := []any{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			n, err := ctyToNative(e)
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		return out, nil
	}
	return nil, fmt.Errorf("yamlencode: cannot encode a value of type %s", ty.FriendlyName())
}

// maxFilesetFiles bounds what fileset lists.
const maxFilesetFiles = 10000

// filesetFunc is Terraform's fileset(path, pattern): the regular files under path whose path
// relative to it matches pattern (*, ?, [...], {a,b} and ** across directories), sorted. Like the
// other file functions it resolves path from the root module and stays inside the checked
// directories; links are followed only to files inside them.
func filesetFunc(files *fileAccess) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}, {Name: "pattern", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Set(cty.String)),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			dir := files.path(args[0].AsString())
			re, err := globRegexp(args[1].AsString())
			if err != nil {
				return cty.NilVal, err
			}
			real, err := files.dirs.Resolve(dir)
			if errors.Is(err, fs.ErrNotExist) {
				return cty.SetValEmpty(cty.String), nil
			}
			if err != nil {
				return cty.NilVal, err
			}
			var found []string
			err = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() {
					return nil
				}
				rel, err := filepath.Rel(real, p)
				if err != nil {
					return err
				}
				rel = filepath.ToSlash(rel)
				if !re.MatchString(rel) || files.dirs.Entry(p, d.Type()) != confine.Read {
					return nil
				}
				if found = append(found, rel); len(found) > maxFilesetFiles {
					return fmt.Errorf("fileset: more than %d files match", maxFilesetFiles)
				}
				return nil
			})
			if err != nil {
				return cty.NilVal, err
			}
			if len(found) == 0 {
				return cty.SetValEmpty(cty.String), nil
			}
			sort.Strings(found)
			vals := make([]cty.Value, len(found))
			for i, f := range found {
				vals[i] = cty.StringVal(f)
			}
			return cty.SetVal(vals), nil
		},
	})
}

// globRegexp translates a fileset pattern: * and ? within one path segment, ** across them,
// [...] classes and {a,b} alternatives.
func globRegexp(pattern string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	depth := 0
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch c {
		case '*':
			if i+1 < len(pattern) && pattern[i+1] == '*' {
				i++
				if i+1 < len(pattern) && pattern[i+1] == '/' {
					i++
					b.WriteString("(?:.*/)?")
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		case '[':
			end := strings.IndexByte(pattern[i+1:], ']')
			if end < 0 {
				return nil, fmt.Errorf("fileset: unclosed [ in pattern %q", pattern)
			}
			class := pattern[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		case '{':
			depth++
			b.WriteString("(?:")
		case '}':
			if depth == 0 {
				return nil, fmt.Errorf("fileset: unmatched } in pattern %q", pattern)
			}
			depth--
			b.WriteString(")")
		case ',':
			if depth > 0 {
				b.WriteString("|")
			} else {
				b.WriteString(",")
			}
		case '\\':
			if i+1 < len(pattern) {
				i++
				b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
			}
		default:
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("fileset: unclosed { in pattern %q", pattern)
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("fileset: bad pattern %q: %v", pattern, err)
	}
	return re, nil
}
