package terraform

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/customdecode"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
)

// maxSalvageDepth bounds how deep salvage descends into nested literals: each level evaluates
// its elements once more, so an unbounded descent would make a deeply nested failing expression
// cost depth² evaluations.
const maxSalvageDepth = 32

// evalOrSalvage evaluates e; if it fails, salvage tries to keep the parts that did not fail, and
// what cannot be kept is an unknown carrying the error as its reason.
func evalOrSalvage(e hcl.Expression, ctx *hcl.EvalContext, depth int) cty.Value {
	v, diags := e.Value(ctx)
	if !diags.HasErrors() {
		return v
	}
	if se, ok := e.(hclsyntax.Expression); ok {
		if sv, ok := salvage(se, ctx, depth+1); ok {
			return sv
		}
	}
	return unresolved("%s", diagReason(diags))
}

// salvage evaluates an expression that failed as a whole again, part by part, when its value is
// built from parts: an object or tuple literal, a for expression, or a function call whose own
// call succeeds once its arguments are salvaged (merge, concat, flatten). Each part that fails
// becomes an unknown with its own error as the reason, so one node group whose user_data
// template cannot be read leaves the other groups of the same map readable. Terraform would stop
// at the error; gpuguard reads what it can and says why the rest is unknown.
//
// It reports false where the expression's shape depends on the part that failed (an unknown or
// failing key, condition or collection, grouping, a duplicate key): the caller then makes the
// whole value unknown, as before.
func salvage(e hclsyntax.Expression, ctx *hcl.EvalContext, depth int) (cty.Value, bool) {
	if depth > maxSalvageDepth {
		return cty.NilVal, false
	}
	switch x := e.(type) {
	case *hclsyntax.ParenthesesExpr:
		return salvage(x.Expression, ctx, depth)
	case *hclsyntax.TupleConsExpr:
		vals := make([]cty.Value, len(x.Exprs))
		for i, item := range x.Exprs {
			vals[i] = evalOrSalvage(item, ctx, depth)
		}
		return cty.TupleVal(vals), true
	case *hclsyntax.ObjectConsExpr:
		attrs := make(map[string]cty.Value, len(x.Items))
		for _, item := range x.Items {
			key, ok := knownString(item.KeyExpr, ctx)
			if !ok {
				return cty.NilVal, false
			}
			attrs[key] = evalOrSalvage(item.ValueExpr, ctx, depth)
		}
		return cty.ObjectVal(attrs), true
	case *hclsyntax.ForExpr:
		return salvageFor(x, ctx, depth)
	case *hclsyntax.FunctionCallExpr:
		return salvageCall(x, ctx, depth)
	}
	return cty.NilVal, false
}

// knownString evaluates a key: it must evaluate without error to a known string.
func knownString(e hcl.Expression, ctx *hcl.EvalContext) (string, bool) {
	v, diags := e.Value(ctx)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() || v.IsMarked() {
		return "", false
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		return "", false
	}
	return s.AsString(), true
}

// salvageFor evaluates a for expression element by element, the way hclsyntax does, keeping
// the elements whose value evaluates.
func salvageFor(x *hclsyntax.ForExpr, ctx *hcl.EvalContext, depth int) (cty.Value, bool) {
	if x.Group {
		return cty.NilVal, false
	}
	coll, diags := x.CollExpr.Value(ctx)
	if diags.HasErrors() || !coll.IsKnown() || coll.IsNull() || coll.IsMarked() || !coll.CanIterateElements() {
		return cty.NilVal, false
	}
	object := x.KeyExpr != nil
	var attrs map[string]cty.Value
	var vals []cty.Value
	if object {
		attrs = map[string]cty.Value{}
	}
	for it := coll.ElementIterator(); it.Next(); {
		k, v := it.Element()
		child := ctx.NewChild()
		child.Variables = map[string]cty.Value{x.ValVar: v}
		if x.KeyVar != "" {
			child.Variables[x.KeyVar] = k
		}
		if x.CondExpr != nil {
			cond, diags := x.CondExpr.Value(child)
			if diags.HasErrors() || !cond.IsKnown() || cond.IsNull() || cond.IsMarked() {
				return cty.NilVal, false
			}
			cond, err := convert.Convert(cond, cty.Bool)
			if err != nil {
				return cty.NilVal, false
			}
			if cond.False() {
				continue
			}
		}
		if !object {
			vals = append(vals, evalOrSalvage(x.ValExpr, child, depth))
			continue
		}
		key, ok := knownString(x.KeyExpr, child)
		if !ok {
			return cty.NilVal, false
		}
		if _, dup := attrs[key]; dup {
			return cty.NilVal, false
		}
		attrs[key] = evalOrSalvage(x.ValExpr, child, depth)
	}
	if object {
		return cty.ObjectVal(attrs), true
	}
	return cty.TupleVal(vals), true
}

// salvageCall calls a function with salvaged arguments. try and can are left alone: they take
// their arguments unevaluated, and catching errors is their job.
func salvageCall(x *hclsyntax.FunctionCallExpr, ctx *hcl.EvalContext, depth int) (cty.Value, bool) {
	if x.ExpandFinal {
		return cty.NilVal, false
	}
	f, ok := functionIn(ctx, x.Name)
	if !ok {
		return cty.NilVal, false
	}
	params, varParam := f.Params(), f.VarParam()
	if len(x.Args) < len(params) || (varParam == nil && len(x.Args) > len(params)) {
		return cty.NilVal, false
	}
	if varParam != nil {
		params = append(params, *varParam)
	}
	for _, p := range params {
		if p.Type.Equals(customdecode.ExpressionClosureType) || p.Type.Equals(customdecode.ExpressionType) {
			return cty.NilVal, false
		}
	}
	args := make([]cty.Value, len(x.Args))
	for i, a := range x.Args {
		args[i] = evalOrSalvage(a, ctx, depth)
	}
	v, err := f.Call(args)
	if err != nil {
		return cty.NilVal, false
	}
	return v, true
}

// functionIn finds a function the way hclsyntax does: in the nearest context that has functions.
func functionIn(ctx *hcl.EvalContext, name string) (function.Function, bool) {
	for c := ctx; c != nil; c = c.Parent() {
		if c.Functions != nil {
			f, ok := c.Functions[name]
			return f, ok
		}
	}
	return function.Function{}, false
}
