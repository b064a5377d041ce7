package terraform

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2/ext/customdecode"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/gpuguard/gpuguard/internal/confine"
)

// maxReadFile bounds what file() and templatefile() read.
const maxReadFile = 1 << 20

var (
	baseFuncsOnce sync.Once
	baseFuncs     map[string]function.Function
)

// terraformFunctions returns Terraform's built-in functions, taken from go-cty's function
// library where it has them and written here only where Terraform's behaviour differs or cty
// has none. Functions whose result is known only at apply time (timestamp, uuid) return
// unknowns. The file functions depend on the root module and are added per evaluation
// (evaluationFunctions).
func terraformFunctions() map[string]function.Function {
	baseFuncsOnce.Do(func() {
		baseFuncs = map[string]function.Function{
			"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc,
			"log": stdlib.LogFunc, "max": stdlib.MaxFunc, "min": stdlib.MinFunc,
			"parseint": stdlib.ParseIntFunc, "pow": stdlib.PowFunc, "signum": stdlib.SignumFunc,
			"chomp": stdlib.ChompFunc, "format": stdlib.FormatFunc, "formatlist": stdlib.FormatListFunc,
			"indent": stdlib.IndentFunc, "join": stdlib.JoinFunc, "lower": stdlib.LowerFunc,
			"regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc, "split": stdlib.SplitFunc,
			"strrev": stdlib.ReverseFunc, "substr": stdlib.SubstrFunc, "title": stdlib.TitleFunc,
			"trim": stdlib.TrimFunc, "trimprefix": stdlib.TrimPrefixFunc, "trimsuffix": stdlib.TrimSuffixFunc,
			"trimspace": stdlib.TrimSpaceFunc, "upper": stdlib.UpperFunc,
			"chunklist": stdlib.ChunklistFunc, "coalesce": coalesceFunc,
			"coalescelist": stdlib.CoalesceListFunc, "compact": stdlib.CompactFunc,
			"concat": stdlib.ConcatFunc, "contains": stdlib.ContainsFunc, "distinct": stdlib.DistinctFunc,
			"element": stdlib.ElementFunc, "flatten": stdlib.FlattenFunc, "keys": stdlib.KeysFunc,
			"lookup": lookupFunc, "merge": stdlib.MergeFunc, "range": stdlib.RangeFunc,
			"reverse": stdlib.ReverseListFunc, "setintersection": stdlib.SetIntersectionFunc,
			"setproduct": stdlib.SetProductFunc, "setsubtract": stdlib.SetSubtractFunc,
			"setunion": stdlib.SetUnionFunc, "slice": stdlib.SliceFunc, "sort": stdlib.SortFunc,
			"values": stdlib.ValuesFunc, "zipmap": stdlib.ZipmapFunc,
			"csvdecode": stdlib.CSVDecodeFunc, "jsondecode": stdlib.JSONDecodeFunc, "jsonencode": stdlib.JSONEncodeFunc,
			"formatdate": stdlib.FormatDateFunc, "timeadd": stdlib.TimeAddFunc,
			"tobool": stdlib.MakeToFunc(cty.Bool), "tonumber": stdlib.MakeToFunc(cty.Number),
			"tostring": stdlib.MakeToFunc(cty.String), "tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
			"toset": stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)), "tomap": stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
			"try": tryFunc, "can": tryfunc.CanFunc,
			"length":      lengthFunc,
			"replace":     replaceFunc,
			"index":       indexFunc,
			"one":         oneFunc,
			"alltrue":     boolFoldFunc(true),
			"anytrue":     boolFoldFunc(false),
			"sum":         sumFunc,
			"startswith":  stringPredicate(strings.HasPrefix),
			"endswith":    stringPredicate(strings.HasSuffix),
			"strcontains": stringPredicate(strings.Contains),
			"sensitive":   identityFunc, "nonsensitive": identityFunc,
			"base64encode": stringMap(func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }),
			"base64decode": base64DecodeFunc,
			"md5":          stringMap(func(s string) string { h := md5.Sum([]byte(s)); return hex.EncodeToString(h[:]) }),
			"sha1":         stringMap(func(s string) string { h := sha1.Sum([]byte(s)); return hex.EncodeToString(h[:]) }),
			"sha256":       stringMap(func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }),
			"basename":     stringMap(filepath.Base), "dirname": stringMap(filepath.Dir),
			"timestamp": unknownFunc(cty.String), "uuid": unknownFunc(cty.String),
			"yamldecode": yamlDecodeFunc, "yamlencode": yamlEncodeFunc,
		}
		for k, f := range moreFunctions() {
			baseFuncs[k] = f
		}
	})
	return baseFuncs
}

// evaluationFunctions are Terraform's functions for one root module: the shared ones and the
// file functions, which read relative to the root module's directory (Terraform runs there) and
// only inside the checked directories, so a configuration under review cannot make gpuguard
// read arbitrary files.
func evaluationFunctions(files *fileAccess) map[string]function.Function {
	base := terraformFunctions()
	funcs := make(map[string]function.Function, len(base)+4)
	for k, f := range base {
		funcs[k] = f
	}
	funcs["file"] = fileFunc(files, nil)
	funcs["fileexists"] = fileExistsFunc(files)
	funcs["fileset"] = filesetFunc(files)
	funcs["filebase64"] = fileFunc(files, base64.StdEncoding.EncodeToString)
	funcs["templatefile"] = templateFileFunc(files, funcs)
	for name, d := range fileDigests {
		funcs[name] = fileFunc(files, d)
	}
	funcs["templatestring"] = templateStringFunc(funcs)
	return funcs
}

var identityFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowUnknown: true, AllowNull: true, AllowMarked: true, AllowDynamicType: true}},
	Type:   func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil },
	Impl:   func(args []cty.Value, _ cty.Type) (cty.Value, error) { return args[0], nil },
})

func unknownFunc(ty cty.Type) function.Function {
	return opaqueFunc(ty, "the value is known only when Terraform applies", 0, 0)
}

// lookupFunc is Terraform's lookup, whose default is optional: without one, a missing key is an
// error (cty's lookup requires the default). The default may be null (lookup(m, k, null)), which
// cty's lookup refuses and Terraform accepts.
var lookupFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "inputMap", Type: cty.DynamicPseudoType, AllowMarked: true},
		{Name: "key", Type: cty.String, AllowMarked: true},
	},
	VarParam: &function.Parameter{Name: "default", Type: cty.DynamicPseudoType, AllowMarked: true, AllowNull: true, AllowUnknown: true, AllowDynamicType: true},
	Type: func(args []cty.Value) (cty.Type, error) {
		if len(args) != 2 && len(args) != 3 {
			return cty.NilType, fmt.Errorf("lookup() takes two or three arguments, got %d", len(args))
		}
		ty := args[0].Type()
		switch {
		case ty.IsObjectType():
			key, _ := args[1].Unmark()
			if !key.IsKnown() {
				return cty.DynamicPseudoType, nil
			}
			if !ty.HasAttribute(key.AsString()) {
				if len(args) == 3 {
					return args[2].Type(), nil
				}
				return cty.NilType, function.NewArgErrorf(1, "lookup failed to find key %q", key.AsString())
			}
			return ty.AttributeType(key.AsString()), nil
		case ty.IsMapType():
			return ty.ElementType(), nil
		case ty == cty.DynamicPseudoType:
			return cty.DynamicPseudoType, nil
		}
		return cty.NilType, function.NewArgErrorf(0, "lookup() requires a map as the first argument")
	},
	Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
		m, marks := args[0].Unmark()
		key, keyMarks := args[1].Unmark()
		if !m.IsWhollyKnown() || !key.IsKnown() {
			return cty.UnknownVal(retType).WithMarks(marks, keyMarks), nil
		}
		if m.IsNull() {
			return cty.NilVal, function.NewArgErrorf(0, "lookup() requires a map, got null")
		}
		k := key.AsString()
		if m.Type().IsObjectType() {
			if m.Type().HasAttribute(k) {
				return m.GetAttr(k).WithMarks(marks, keyMarks), nil
			}
		} else if m.HasIndex(cty.StringVal(k)) == cty.True {
			return m.Index(cty.StringVal(k)).WithMarks(marks, keyMarks), nil
		}
		if len(args) == 3 {
			// The default, as the map's element type when it has one.
			d, dMarks := args[2].Unmark()
			if retType != cty.DynamicPseudoType {
				converted, err := convert.Convert(d, retType)
				if err != nil {
					return cty.NilVal, function.NewArgError(2, err)
				}
				d = converted
			}
			return d.WithMarks(marks, keyMarks, dMarks), nil
		}
		return cty.NilVal, function.NewArgErrorf(1, "lookup failed to find key %q", k)
	},
})

// lengthFunc is Terraform's length: collections, objects and strings.
var lengthFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowUnknown: true}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		if ty == cty.String || ty.IsCollectionType() || ty.IsTupleType() || ty.IsObjectType() || ty == cty.DynamicPseudoType {
			return cty.Number, nil
		}
		return cty.NilType, fmt.Errorf("argument must be a string, a collection type, or a structural type")
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		if !v.IsKnown() {
			return cty.UnknownVal(cty.Number), nil
		}
		switch {
		case v.Type() == cty.String:
			return stdlib.Strlen(v)
		case v.Type().IsObjectType():
			return cty.NumberIntVal(int64(len(v.Type().AttributeTypes()))), nil
		case v.Type().IsTupleType():
			return cty.NumberIntVal(int64(len(v.Type().TupleElementTypes()))), nil
		}
		return v.Length(), nil
	},
})

// coalesceFunc is Terraform's coalesce: the first argument that is neither null nor an empty
// string (go-cty's skips only nulls).
var coalesceFunc = function.New(&function.Spec{
	VarParam: &function.Parameter{Name: "vals", Type: cty.DynamicPseudoType, AllowUnknown: true, AllowDynamicType: true, AllowNull: true},
	Type: func(args []cty.Value) (cty.Type, error) {
		types := make([]cty.Type, len(args))
		for i, a := range args {
			types[i] = a.Type()
		}
		ty, _ := convert.UnifyUnsafe(types)
		if ty == cty.NilType {
			return cty.NilType, fmt.Errorf("all arguments must have the same type")
		}
		return ty, nil
	},
	Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
		for _, a := range args {
			if !a.IsKnown() {
				return cty.UnknownVal(retType), nil
			}
			if a.IsNull() {
				continue
			}
			if a.Type() == cty.String && a.AsString() == "" {
				continue
			}
			return convert.Convert(a, retType)
		}
		return cty.NilVal, fmt.Errorf("no non-null, non-empty-string arguments")
	},
})

// replaceFunc is Terraform's replace: a search string wrapped in slashes is a regular expression.
var replaceFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}, {Name: "substr", Type: cty.String}, {Name: "replace", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		s, sub, rep := args[0].AsString(), args[1].AsString(), args[2].AsString()
		if len(sub) > 1 && sub[0] == '/' && sub[len(sub)-1] == '/' {
			re, err := regexp.Compile(sub[1 : len(sub)-1])
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(re.ReplaceAllString(s, rep)), nil
		}
		return cty.StringVal(strings.ReplaceAll(s, sub, rep)), nil
	},
})

// indexFunc is Terraform's index(list, value): the position of value in list.
var indexFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType}, {Name: "value", Type: cty.DynamicPseudoType}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		list := args[0]
		if !(list.Type().IsListType() || list.Type().IsTupleType()) {
			return cty.NilVal, fmt.Errorf("argument must be a list or tuple")
		}
		i := 0
		for it := list.ElementIterator(); it.Next(); i++ {
			_, v := it.Element()
			if eq, err := stdlib.Equal(v, args[1]); err == nil && eq.IsKnown() && eq.True() {
				return cty.NumberIntVal(int64(i)), nil
			}
		}
		return cty.NilVal, fmt.Errorf("item not found")
	},
})

var oneFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		switch {
		case ty.IsListType() || ty.IsSetType():
			return ty.ElementType(), nil
		case ty.IsTupleType():
			if n := len(ty.TupleElementTypes()); n == 1 {
				return ty.TupleElementTypes()[0], nil
			} else if n == 0 {
				return cty.DynamicPseudoType, nil
			}
			return cty.NilType, fmt.Errorf("must be a list, set, or tuple value with either zero or one elements")
		}
		return cty.NilType, fmt.Errorf("must be a list, set, or tuple value with either zero or one elements")
	},
	Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
		v := args[0]
		switch v.LengthInt() {
		case 0:
			return cty.NullVal(retType), nil
		case 1:
			it := v.ElementIterator()
			it.Next()
			_, e := it.Element()
			return e, nil
		}
		return cty.NilVal, fmt.Errorf("must be a list, set, or tuple value with either zero or one elements")
	},
})

func boolFoldFunc(all bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "list", Type: cty.List(cty.Bool)}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			for it := args[0].ElementIterator(); it.Next(); {
				_, v := it.Element()
				if !v.IsKnown() {
					return cty.UnknownVal(cty.Bool), nil
				}
				if v.IsNull() {
					return cty.False, nil
				}
				if v.True() != all {
					return cty.BoolVal(!all), nil
				}
			}
			return cty.BoolVal(all), nil
		},
	})
}

var sumFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		if !v.CanIterateElements() || v.LengthInt() == 0 {
			return cty.NilVal, fmt.Errorf("cannot sum an empty list or a non-collection")
		}
		total := cty.Zero
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			n, err := stdlib.MakeToFunc(cty.Number).Call([]cty.Value{e})
			if err != nil {
				return cty.NilVal, err
			}
			if !n.IsKnown() {
				return cty.UnknownVal(cty.Number), nil
			}
			total = total.Add(n)
		}
		return total, nil
	},
})

func stringPredicate(f func(s, t string) bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "str", Type: cty.String}, {Name: "part", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.BoolVal(f(args[0].AsString(), args[1].AsString())), nil
		},
	})
}

func stringMap(f func(string) string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "str", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(f(args[0].AsString())), nil
		},
	})
}

var base64DecodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "str", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		b, err := base64.StdEncoding.DecodeString(args[0].AsString())
		if err != nil {
			return cty.NilVal, fmt.Errorf("invalid base64: %w", err)
		}
		return cty.StringVal(string(b)), nil
	},
})

// fileAccess is where a root module's file functions read: paths relative to the root
// module's directory, as Terraform resolves them, and only inside dirs (the checked directories
// and the project; see package confine): a symlink or "../.." in a pull request's configuration
// cannot make gpuguard read, and print, a file of the runner's.
type fileAccess struct {
	base string
	dirs confine.Dirs
	read map[string]bool // real paths of the files read
}

func (a *fileAccess) path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(a.base, p)
}

func (a *fileAccess) readFile(p string) (string, error) {
	full := a.path(p)
	b, err := a.dirs.ReadFile(full, maxReadFile)
	if err != nil {
		return "", err
	}
	if real, err := a.dirs.Resolve(full); err == nil {
		if a.read == nil {
			a.read = map[string]bool{}
		}
		a.read[real] = true
	}
	return string(b), nil
}

// consumed lists the files read, sorted.
func (a *fileAccess) consumed() []string {
	out := make([]string, 0, len(a.read))
	for p := range a.read {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// fileDigests are Terraform's file hash functions: a digest of the file's bytes, in hex or base64.
var fileDigests = map[string]func([]byte) string{
	"filemd5":          func(b []byte) string { h := md5.Sum(b); return hex.EncodeToString(h[:]) },
	"filesha1":         func(b []byte) string { h := sha1.Sum(b); return hex.EncodeToString(h[:]) },
	"filesha256":       func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) },
	"filesha512":       func(b []byte) string { h := sha512.Sum512(b); return hex.EncodeToString(h[:]) },
	"filebase64sha256": func(b []byte) string { h := sha256.Sum256(b); return base64.StdEncoding.EncodeToString(h[:]) },
	"filebase64sha512": func(b []byte) string { h := sha512.Sum512(b); return base64.StdEncoding.EncodeToString(h[:]) },
}

// fileFunc is file() (encode nil: the text) or filebase64() (encode: its base64).
func fileFunc(files *fileAccess, encode func([]byte) string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			s, err := files.readFile(args[0].AsString())
			if err != nil {
				return cty.NilVal, err
			}
			if encode != nil {
				s = encode([]byte(s))
			}
			return cty.StringVal(s), nil
		},
	})
}

// fileExistsFunc is false for a missing file; a path outside the checked directories is an
// error (the value is unresolved), not a silent false that would steer a conditional.
func fileExistsFunc(files *fileAccess) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			real, err := files.dirs.Resolve(files.path(args[0].AsString()))
			if errors.Is(err, fs.ErrNotExist) {
				return cty.False, nil
			}
			if err != nil {
				return cty.NilVal, err
			}
			info, err := os.Stat(real)
			return cty.BoolVal(err == nil && info.Mode().IsRegular()), nil
		},
	})
}

func templateFileFunc(files *fileAccess, funcs map[string]function.Function) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}, {Name: "vars", Type: cty.DynamicPseudoType}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			src, err := files.readFile(args[0].AsString())
			if err != nil {
				return cty.NilVal, err
			}
			// Templates may call the same functions, but not the template functions (no recursion).
			return renderTemplate(src, args[0].AsString(), args[1], funcs)
		},
	})
}

// tryFunc is hcl's try, but an unknown result keeps the marks of the value it stands for:
// tryfunc returns a bare unknown, and try(aws_autoscaling_group.this[0].name, null), as modules
// write their outputs, would then no longer say which resource it comes from, nor why it is
// unknown.
var tryFunc = function.New(&function.Spec{
	VarParam: &function.Parameter{Name: "expressions", Type: customdecode.ExpressionClosureType},
	Type: func(args []cty.Value) (cty.Type, error) {
		v, err := tryMarked(args)
		if err != nil {
			return cty.NilType, err
		}
		return v.Type(), nil
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) { return tryMarked(args) },
})

func tryMarked(args []cty.Value) (cty.Value, error) {
	for _, arg := range args {
		v, diags := customdecode.ExpressionClosureFromVal(arg).Value()
		if diags.HasErrors() {
			continue
		}
		if v.IsWhollyKnown() {
			return v, nil
		}
		// Unknown in part: the result is unknown in whole, as tryfunc has it (a known value
		// may yet fail where this one did not), with the marks of all its parts.
		out := cty.DynamicVal
		_, pvm := v.UnmarkDeepWithPaths()
		for _, pm := range pvm {
			out = out.WithMarks(pm.Marks)
		}
		return out, nil
	}
	return tryfunc.TryFunc.Call(args) // none succeeds: its error names every failure
}
