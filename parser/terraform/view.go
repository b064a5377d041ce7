package terraform

import (
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/gpuguard/gpuguard/parser"
)

// view reads attributes of one evaluated object for a mapper, recording on the resource being
// built why an attribute the mapper needed is unknown.
type view struct {
	obj  cty.Value
	res  *parser.Resource
	path string // attribute path prefix for messages, "node_config.0."
}

// at returns the value at a path of attribute names and block indexes. A nested block written
// as an object (as .tf.json files do) is read as a block list of one. The second result is false
// when the path does not exist.
func at(v cty.Value, path ...any) (cty.Value, bool) {
	for _, step := range path {
		if v == cty.NilVal || v.IsNull() {
			return cty.NilVal, false
		}
		if !v.IsKnown() {
			return v, true // an unknown swallows the rest of the path, keeping its marks
		}
		v, _ = v.Unmark()
		ty := v.Type()
		switch s := step.(type) {
		case string:
			switch {
			case ty.IsObjectType():
				if !ty.HasAttribute(s) {
					return cty.NilVal, false
				}
				v = v.GetAttr(s)
			case ty.IsMapType():
				k := cty.StringVal(s)
				if !v.HasIndex(k).True() {
					return cty.NilVal, false
				}
				v = v.Index(k)
			case (ty.IsTupleType() || ty.IsListType()) && v.LengthInt() > 0:
				// "scheduling.provisioning_model" on a block list means its first block.
				first := v.Index(cty.NumberIntVal(0))
				return at(first, append([]any{s}, path[1:]...)...)
			default:
				return cty.NilVal, false
			}
			path = path[1:]
			return at(v, path...)
		case int:
			switch {
			case ty.IsTupleType() || ty.IsListType():
				if s >= v.LengthInt() {
					return cty.NilVal, false
				}
				v = v.Index(cty.NumberIntVal(int64(s)))
			case ty.IsObjectType() || ty.IsMapType():
				if s != 0 {
					return cty.NilVal, false
				}
			default:
				return cty.NilVal, false
			}
			path = path[1:]
			return at(v, path...)
		}
	}
	return v, v != cty.NilVal
}

func pathString(prefix string, path []any) string {
	parts := make([]string, 0, len(path))
	for _, p := range path {
		parts = append(parts, fmt.Sprint(p))
	}
	return prefix + strings.Join(parts, ".")
}

// quiet is the same object read without recording anything on the resource: for values that
// add to a price but never withhold it (an autoscaler's maximum, tags).
func (w *view) quiet() *view { return &view{obj: w.obj} }

// known reads a value and, when it is unknown, records why on the resource.
func (w *view) known(path ...any) (cty.Value, bool) {
	v, ok := at(w.obj, path...)
	if !ok {
		return cty.NilVal, false
	}
	if !v.IsWhollyKnown() {
		if w.res != nil {
			w.res.AddUnresolved(pathString(w.path, path), unknownReason(v))
		}
		return cty.NilVal, false
	}
	v, _ = v.UnmarkDeep()
	if v.IsNull() {
		return cty.NilVal, false
	}
	return v, true
}

// maxWhy is why an autoscaler's maximum that the configuration declares at path cannot be
// read: known only after apply, not a whole number, or too large. It is "" when the maximum is
// absent, null or readable.
func (w *view) maxWhy(path ...any) string {
	v, ok := at(w.obj, path...)
	if !ok {
		return ""
	}
	if !v.IsWhollyKnown() {
		return unknownReason(v)
	}
	if v, _ = v.UnmarkDeep(); v.IsNull() {
		return ""
	}
	_, why := wholeNumber(v)
	return why
}

// unreadMax marks a resource whose autoscaler's maximum cannot be read, and says so in a note:
// the total at every maximum leaves its growth out, rather than dropping it in silence.
func unreadMax(r *parser.Resource, attr, why string) {
	r.ScaleMaxUnknown = true
	r.Note("%s cannot be read (%s): the total at every maximum leaves out its growth", attr, why)
}

// str reads a string attribute ("" and false when absent or unknown).
func (w *view) str(path ...any) (string, bool) {
	v, ok := w.known(path...)
	if !ok {
		return "", false
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		if w.res != nil {
			w.res.AddUnresolved(pathString(w.path, path), fmt.Sprintf("a string is required, got %s", v.Type().FriendlyName()))
		}
		return "", false
	}
	return s.AsString(), true
}

// num reads a whole, non-negative number.
func (w *view) num(path ...any) (int, bool) {
	v, ok := w.known(path...)
	if !ok {
		return 0, false
	}
	n, reason := wholeNumber(v)
	if reason != "" {
		if w.res != nil {
			w.res.AddUnresolved(pathString(w.path, path), reason)
		}
		return 0, false
	}
	return n, true
}

// boolean reads a bool.
func (w *view) boolean(path ...any) (bool, bool) {
	v, ok := w.known(path...)
	if !ok {
		return false, false
	}
	b, err := convert.Convert(v, cty.Bool)
	if err != nil {
		if w.res != nil {
			w.res.AddUnresolved(pathString(w.path, path), "a bool is required")
		}
		return false, false
	}
	return b.True(), true
}

// strList reads a list or set of strings (a single string is a list of one).
func (w *view) strList(path ...any) ([]string, bool) {
	v, ok := w.known(path...)
	if !ok {
		return nil, false
	}
	if v.Type() == cty.String {
		return []string{v.AsString()}, true
	}
	if !v.CanIterateElements() {
		return nil, false
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() {
			continue
		}
		s, err := convert.Convert(e, cty.String)
		if err != nil {
			return nil, false
		}
		out = append(out, s.AsString())
	}
	return out, true
}

// strMap reads a map of strings (tags, labels); values that are unknown are skipped.
func (w *view) strMap(path ...any) map[string]string {
	out, _, _ := w.strMapUnknown(path...)
	return out
}

// strMapUnknown reads a map of strings like strMap, and says which of its keys have values
// known only at apply, and whether the whole map is (set but unknown).
func (w *view) strMapUnknown(path ...any) (out map[string]string, unknownKeys []string, unknown bool) {
	v, ok := at(w.obj, path...)
	if !ok {
		return nil, nil, false
	}
	if !v.IsKnown() {
		return nil, nil, true
	}
	v, _ = v.UnmarkDeep()
	if v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
		return nil, nil, false
	}
	out = map[string]string{}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if !e.IsKnown() {
			unknownKeys = append(unknownKeys, k.AsString())
			continue
		}
		if e.IsNull() {
			continue
		}
		if s, err := convert.Convert(e, cty.String); err == nil {
			out[k.AsString()] = s.AsString()
		}
	}
	return out, unknownKeys, false
}

// blocks returns the nested blocks at a path as views.
func (w *view) blocks(path ...any) []*view {
	v, ok := at(w.obj, path...)
	if !ok {
		return nil
	}
	if !v.IsKnown() {
		if w.res != nil {
			w.res.AddUnresolved(pathString(w.path, path), unknownReason(v))
		}
		return nil
	}
	v, _ = v.Unmark()
	if v.IsNull() {
		return nil
	}
	base := pathString(w.path, path)
	var out []*view
	switch {
	case v.Type().IsTupleType() || v.Type().IsListType() || v.Type().IsSetType():
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, e := it.Element()
			out = append(out, &view{obj: e, res: w.res, path: fmt.Sprintf("%s.%d.", base, i)})
		}
	case v.Type().IsObjectType() || v.Type().IsMapType():
		out = append(out, &view{obj: v, res: w.res, path: base + ".0."})
	}
	return out
}

// has reports whether the path is set (known or not).
func (w *view) has(path ...any) bool {
	v, ok := at(w.obj, path...)
	return ok && (!v.IsKnown() || !v.IsNull())
}

// refs returns the addresses of resources a value refers to through their computed attributes.
func (w *view) refs(path ...any) []string {
	v, ok := at(w.obj, path...)
	if !ok {
		return nil
	}
	return computedRefs(v)
}

// notFound says why the resource a reference at path should name was not found: the reference's
// own reasons when it is unknown for one (an output a stand-in does not model, a variable
// without a value), else that the resource is not in this configuration. what names the
// resource ("the instance template").
func (w *view) notFound(what string, path ...any) string {
	if v, ok := at(w.obj, path...); ok && !v.IsWhollyKnown() {
		if reasons := markReasons(v, false); len(reasons) > 0 {
			return what + " is unknown: " + strings.Join(reasons, "; ")
		}
	}
	return what + " is not in this configuration"
}
