package policies

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/gpuguard/gpuguard/internal/money"
)

// toTerm converts a Go value to an OPA term the way encoding/json would encode it (json tags,
// omitempty, money as decimals), without writing and re-reading JSON: on 4,000 resources the
// round trip through JSON was the slowest part of policy evaluation. Keys in skip are left out.
//
// Keys and short strings are shared between the objects (a converter interns them): most of
// the input's terms are field names and a handful of values (providers, purchase options,
// verdicts), and sharing them halves the allocations. OPA never mutates input terms.
func toTerm(v reflect.Value, skip map[string]bool) (*ast.Term, error) {
	return newConverter(skip).term(v)
}

func newConverter(skip map[string]bool) *converter {
	return &converter{skip: skip, strs: map[string]*ast.Term{}}
}

type converter struct {
	skip map[string]bool
	strs map[string]*ast.Term
}

func (c *converter) str(s string) *ast.Term {
	if len(s) > 48 {
		return ast.StringTerm(s)
	}
	if t, ok := c.strs[s]; ok {
		return t
	}
	t := ast.StringTerm(s)
	c.strs[s] = t
	return t
}

func (c *converter) term(v reflect.Value) (*ast.Term, error) {
	if !v.IsValid() {
		return ast.NullTerm(), nil
	}
	// Compare types rather than calling Interface(): boxing every struct value allocated.
	switch v.Type() {
	case amountType:
		return ast.NumberTerm(json.Number(money.Micros(v.Int()).Decimal(2))), nil
	case rateType:
		return ast.NumberTerm(json.Number(money.Micros(v.Int()).Decimal(4))), nil
	case numberType:
		return ast.NumberTerm(json.Number(v.String())), nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ast.NullTerm(), nil
		}
		return c.term(v.Elem())
	case reflect.String:
		return c.str(v.String()), nil
	case reflect.Bool:
		return ast.BooleanTerm(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return ast.IntNumberTerm(int(v.Int())), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return ast.NumberTerm(json.Number(strconv.FormatUint(v.Uint(), 10))), nil
	case reflect.Float32, reflect.Float64:
		return ast.NumberTerm(json.Number(strconv.FormatFloat(v.Float(), 'g', -1, 64))), nil
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return ast.NullTerm(), nil
		}
		terms := make([]*ast.Term, v.Len())
		for i := range terms {
			t, err := c.term(v.Index(i))
			if err != nil {
				return nil, err
			}
			terms[i] = t
		}
		return ast.ArrayTerm(terms...), nil
	case reflect.Map:
		if v.IsNil() {
			return ast.NullTerm(), nil
		}
		obj := ast.NewObjectWithCapacity(v.Len())
		it := v.MapRange()
		for it.Next() {
			k := it.Key()
			if k.Kind() != reflect.String {
				return nil, fmt.Errorf("map key %s is not a string", k.Type())
			}
			t, err := c.term(it.Value())
			if err != nil {
				return nil, err
			}
			obj.Insert(c.str(k.String()), t)
		}
		return ast.NewTerm(obj), nil
	case reflect.Struct:
		fields := structFields(v.Type())
		obj := ast.NewObjectWithCapacity(len(fields))
		for _, f := range fields {
			if c.skip[f.name] {
				continue
			}
			fv := v.Field(f.index)
			if f.omitEmpty && fv.IsZero() {
				continue
			}
			if f.omitEmpty && (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map) && fv.Len() == 0 {
				continue
			}
			t, err := c.term(fv)
			if err != nil {
				return nil, err
			}
			obj.Insert(c.str(f.name), t)
		}
		return ast.NewTerm(obj), nil
	}
	return nil, fmt.Errorf("cannot convert %s for policies", v.Type())
}

var (
	amountType = reflect.TypeFor[money.Amount]()
	rateType   = reflect.TypeFor[money.Rate]()
	numberType = reflect.TypeFor[json.Number]()
)

type field struct {
	name      string
	index     int
	omitEmpty bool
}

var fieldCache sync.Map // reflect.Type -> []field

func structFields(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	var out []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		out = append(out, field{name: name, index: i, omitEmpty: strings.Contains(","+opts+",", ",omitempty,")})
	}
	fieldCache.Store(t, out)
	return out
}
