package terraform

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/gpuguard/gpuguard/parser"
)

// callSite is where a resource of a downloaded module or a stand-in is reported, and the
// suppressions that apply to it. The module's files are not the user's, so it is the call the
// user wrote; but a call that declares several node groups (the EKS module's
// eks_managed_node_groups, the GKE module's node_pools, the AKS module's node_pools) makes one
// resource per entry, and the entry is the place to point at and to annotate: a resource
// instance made for the key "gpu" is reported at the line of the call's entry `gpu = {` (or the
// list item with `name = "gpu"`), and a gpuguard:ignore comment above that entry waives rules on
// that resource alone, beside the comments above the call, which waive them on all of them.
func (c *mapContext) callSite(call *moduleCall) (parser.Location, []parser.Suppression) {
	at := parser.Location{File: call.rng.Filename, Line: call.rng.Start.Line}
	sups := call.suppressions
	rng, caller, ok := c.callEntry(call)
	if !ok {
		return at, sups
	}
	at = parser.Location{File: rng.Filename, Line: rng.Start.Line}
	for _, sf := range caller.cfg.files {
		if sf.name == rng.Filename {
			if more := sf.suppressionsAbove(rng.Start.Line); len(more) > 0 {
				sups = append(append([]parser.Suppression{}, sups...), more...)
			}
			break
		}
	}
	return at, sups
}

// callEntry finds the entry of the call's arguments that this resource instance was made for:
// the for_each keys between the instance and the call, innermost first, are looked up among the
// top-level entries of each argument (a map's keys, a list's objects by their name); a key found
// in exactly one place wins. An entry is found through a local value the argument names, and
// inside merge() or concat(); never deeper (a taint or a label of the same name inside an entry
// is not an entry). Keys only known at evaluation (templates, variables) are not matched: the
// call is then the place. caller is the module instance whose files hold the call.
func (c *mapContext) callEntry(call *moduleCall) (rng hcl.Range, caller *moduleInstance, ok bool) {
	var keys, names []string
	if k := c.inst.key; k != cty.NilVal && k.Type() == cty.String && k.IsKnown() && !k.IsNull() {
		keys = append(keys, k.AsString())
	}
	for m := c.inst.mod; m != nil; m = m.parent {
		if m.call == call {
			caller = m.parent
			break
		}
		if m.eachKey != "" {
			keys = append(keys, m.eachKey)
		}
		if m.call != nil {
			names = append(names, m.call.name)
		}
	}
	if caller == nil {
		return hcl.Range{}, nil, false
	}
	args := make(map[string]hcl.Expression, len(call.args))
	for name, a := range call.args {
		args[name] = a.Expr
	}
	rng, ok = findEntry(keys, names, args, caller.cfg.locals)
	return rng, caller, ok
}

// InputEntry finds the entry of a Terragrunt unit's inputs that a resource of a stand-in was
// made for, as callEntry does in a module call: the for_each keys in the resource's address
// (module.eks_managed_node_group["gpu"].aws_eks_node_group.this[0]: "gpu"), among the top-level
// entries of each input's expression as written. inputs maps an input's name to its
// expression; false when no entry, or more than one, is found.
func InputEntry(address string, inputs map[string]hcl.Expression) (hcl.Range, bool) {
	var keys, names []string
	for _, m := range addressKey.FindAllStringSubmatch(address, -1) {
		if k, err := strconv.Unquote(m[1]); err == nil {
			keys = append([]string{k}, keys...) // innermost first
		}
	}
	for _, m := range addressModule.FindAllStringSubmatch(address, -1) {
		names = append([]string{m[1]}, names...)
	}
	return findEntry(keys, names, inputs, nil)
}

var (
	addressKey    = regexp.MustCompile(`\[("(?:[^"\\]|\\.)*")\]`)
	addressModule = regexp.MustCompile(`(?:^|\.)module\.([A-Za-z0-9_-]+)`)
)

// findEntry looks the keys up, innermost first, among the top-level entries of the arguments;
// the first key found in one place wins.
func findEntry(keys, names []string, args map[string]hcl.Expression, locals map[string]*hcl.Attribute) (hcl.Range, bool) {
	if len(keys) == 0 {
		return hcl.Range{}, false
	}
	order := make([]string, 0, len(args))
	for name := range args {
		order = append(order, name)
	}
	sort.Strings(order)
	for _, key := range keys {
		var found []callEntry
		for _, name := range order {
			for _, e := range topEntries(args[name], locals, 0) {
				if e.key == key {
					e.arg = name
					found = append(found, e)
				}
			}
		}
		if e, ok := pickEntry(found, names); ok {
			return e.rng, true
		}
	}
	return hcl.Range{}, false
}

// callEntry is one top-level entry of a module call's argument.
type callEntry struct {
	key string
	arg string
	rng hcl.Range
}

// pickEntry picks the one entry a key names. The same key may be an entry of several arguments:
// of eks_managed_node_groups and self_managed_node_groups (the argument named for the module
// that made the instance decides), or of the GKE module's node_pools and its per-pool maps
// node_pools_labels, node_pools_taints (the argument whose name starts all the others' does).
func pickEntry(found []callEntry, names []string) (callEntry, bool) {
	if len(found) == 1 {
		return found[0], true
	}
	var named []callEntry
	for _, e := range found {
		if namesArgument(names, e.arg) {
			named = append(named, e)
		}
	}
	if len(named) == 1 {
		return named[0], true
	}
	for _, e := range found {
		base := true
		for _, o := range found {
			if o != e && (o.arg == e.arg || !strings.HasPrefix(o.arg, e.arg)) {
				base = false
				break
			}
		}
		if base {
			return e, true
		}
	}
	return callEntry{}, false
}

// namesArgument says whether an argument is named for one of the module calls: the call
// eks_managed_node_group for the argument eks_managed_node_groups.
func namesArgument(calls []string, arg string) bool {
	for _, n := range calls {
		if n != "" && strings.HasPrefix(arg, n) { // the plural, or the name itself, starts with it
			return true
		}
	}
	return false
}

// topEntries lists the entries of a map or list expression as written: a map's literal keys, a
// list's objects by their literal name attribute. depth bounds following local values.
func topEntries(expr hcl.Expression, locals map[string]*hcl.Attribute, depth int) []callEntry {
	if depth > 4 {
		return nil
	}
	switch e := expr.(type) {
	case *hclsyntax.ObjectConsExpr:
		var out []callEntry
		for _, item := range e.Items {
			if k, ok := literalString(item.KeyExpr); ok {
				out = append(out, callEntry{key: k, rng: item.KeyExpr.Range()})
			}
		}
		return out
	case *hclsyntax.TupleConsExpr:
		var out []callEntry
		for _, item := range e.Exprs {
			obj, ok := item.(*hclsyntax.ObjectConsExpr)
			if !ok {
				continue
			}
			for _, a := range obj.Items {
				if k, ok := literalString(a.KeyExpr); !ok || k != "name" {
					continue
				}
				if name, ok := literalString(a.ValueExpr); ok {
					out = append(out, callEntry{key: name, rng: obj.Range()})
				}
			}
		}
		return out
	case *hclsyntax.FunctionCallExpr:
		if e.Name != "merge" && e.Name != "concat" {
			return nil
		}
		var out []callEntry
		for _, a := range e.Args {
			out = append(out, topEntries(a, locals, depth+1)...)
		}
		return out
	case *hclsyntax.ParenthesesExpr:
		return topEntries(e.Expression, locals, depth+1)
	case *hclsyntax.ScopeTraversalExpr:
		if len(e.Traversal) == 2 && e.Traversal.RootName() == "local" {
			if a, ok := e.Traversal[1].(hcl.TraverseAttr); ok {
				if l, ok := locals[a.Name]; ok {
					return topEntries(l.Expr, locals, depth+1)
				}
			}
		}
	}
	return nil
}

// literalString is the value of an expression that is a string as written: a quoted literal,
// or an object key written as a bare name (not one in parentheses, which HCL evaluates).
func literalString(expr hcl.Expression) (string, bool) {
	switch e := expr.(type) {
	case *hclsyntax.ObjectConsKeyExpr:
		if e.ForceNonLiteral {
			return "", false
		}
		if name := hcl.ExprAsKeyword(e.Wrapped); name != "" {
			return name, true
		}
		return literalString(e.Wrapped)
	case *hclsyntax.TemplateExpr, *hclsyntax.LiteralValueExpr:
		// A template with interpolations does not evaluate without a context.
	default:
		return "", false
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() || v.Type() != cty.String || !v.IsKnown() || v.IsNull() {
		return "", false
	}
	return v.AsString(), true
}
