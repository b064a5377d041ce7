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

// newConverter makes a converter of Go values to OPA terms the way encoding/json would encode
// them (json tags, omitempty, money as decimals), without writing and re-reading JSON: on 4,000
// resources the round trip through JSON was the slowest part of policy evaluation. Keys in skip
// are left out.
//
// Keys and short strings are shared between the objects (a converter interns them): most of
// the input's terms are field names and a handful of values (providers, purchase options,
// verdicts), and sharing them halves the allocations. OPA never mutates input terms.
func newConverter(skip map[string]bool) *converter {
	return &converter{skip: skip, strs: map[string]*ast.Term{}, nums: map[string]*ast.Term{}, fields: map[reflect.Type][]field{}}
}

type converter struct {
	skip   map[string]bool
	strs   map[string]*ast.Term
	nums   map[string]*ast.Term
	fields map[reflect.Type][]field
	// pairs is a stack of an object's key/value pairs while it is built: ast.NewObject copies
	// them into one block, so the slice is reused by every object (nested ones push above).
	pairs [][2]*ast.Term
	buf   []byte
	// slab hands out terms from blocks instead of one allocation each (a resource has a few
	// dozen terms of its own: its objects, amounts, ids).
	slab []ast.Term
}

// newTerm is ast.NewTerm from the converter's current block.
func (c *converter) newTerm(v ast.Value) *ast.Term {
	if len(c.slab) == 0 {
		c.slab = make([]ast.Term, 512)
	}
	t := &c.slab[0]
	c.slab = c.slab[1:]
	t.Value = v
	return t
}

func (c *converter) str(s string) *ast.Term {
	if len(s) > 48 {
		return c.newTerm(ast.String(s))
	}
	if t, ok := c.strs[s]; ok {
		return t
	}
	t := c.newTerm(ast.String(s))
	c.strs[s] = t
	return t
}

// num shares number terms by their text (hours, quantities, GPU counts, common amounts repeat).
func (c *converter) num(text []byte) *ast.Term {
	if t, ok := c.nums[string(text)]; ok {
		return t
	}
	s := string(text)
	t := c.newTerm(ast.Number(s))
	c.nums[s] = t
	return t
}

// decimal writes micros as a decimal with digits places, as money.Micros.Decimal does.
func (c *converter) decimal(m int64, digits int) *ast.Term {
	c.buf = money.Micros(m).AppendDecimal(c.buf[:0], digits)
	return c.num(c.buf)
}

func (c *converter) term(v reflect.Value) (*ast.Term, error) {
	if !v.IsValid() {
		return ast.InternedNullTerm, nil
	}
	// Compare types rather than calling Interface(): boxing every struct value allocated.
	switch v.Type() {
	case amountType:
		return c.decimal(v.Int(), 2), nil
	case rateType:
		return c.decimal(v.Int(), 4), nil
	case numberType:
		return c.newTerm(ast.Number(v.String())), nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ast.InternedNullTerm, nil
		}
		return c.term(v.Elem())
	case reflect.String:
		return c.str(v.String()), nil
	case reflect.Bool:
		return ast.InternedTerm(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c.buf = strconv.AppendInt(c.buf[:0], v.Int(), 10)
		return c.num(c.buf), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		c.buf = strconv.AppendUint(c.buf[:0], v.Uint(), 10)
		return c.num(c.buf), nil
	case reflect.Float32, reflect.Float64:
		c.buf = strconv.AppendFloat(c.buf[:0], v.Float(), 'g', -1, 64)
		return c.num(c.buf), nil
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return ast.InternedNullTerm, nil
		}
		terms := make([]*ast.Term, v.Len())
		for i := range terms {
			t, err := c.term(v.Index(i))
			if err != nil {
				return nil, err
			}
			terms[i] = t
		}
		return c.newTerm(ast.NewArray(terms...)), nil
	case reflect.Map:
		if v.IsNil() {
			return ast.InternedNullTerm, nil
		}
		base := len(c.pairs)
		if m, ok := v.Interface().(map[string]string); ok {
			// The common map (tags, labels) without reflect's copies of every key and value.
			for k, s := range m {
				c.pairs = append(c.pairs, [2]*ast.Term{c.str(k), c.str(s)})
			}
			return c.object(base), nil
		}
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
			c.pairs = append(c.pairs, [2]*ast.Term{c.str(k.String()), t})
		}
		return c.object(base), nil
	case reflect.Struct:
		base := len(c.pairs)
		for _, f := range c.structFields(v.Type()) {
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
			c.pairs = append(c.pairs, [2]*ast.Term{f.key, t})
		}
		return c.object(base), nil
	}
	return nil, fmt.Errorf("cannot convert %s for policies", v.Type())
}

// object makes an object of the pairs pushed since base and pops them.
func (c *converter) object(base int) *ast.Term {
	t := c.newTerm(ast.NewObject(c.pairs[base:]...))
	clear(c.pairs[base:])
	c.pairs = c.pairs[:base]
	return t
}

// structFields are a struct type's JSON fields less the skipped ones, with their key terms.
func (c *converter) structFields(t reflect.Type) []field {
	if f, ok := c.fields[t]; ok {
		return f
	}
	var out []field
	for _, f := range jsonFields(t) {
		if !c.skip[f.name] {
			f.key = c.str(f.name)
			out = append(out, f)
		}
	}
	c.fields[t] = out
	return out
}

var (
	amountType = reflect.TypeFor[money.Amount]()
	rateType   = reflect.TypeFor[money.Rate]()
	numberType = reflect.TypeFor[json.Number]()
)

type field struct {
	name      string
	key       *ast.Term
	index     int
	omitEmpty bool
}

var fieldCache sync.Map // reflect.Type -> []field

func jsonFields(t reflect.Type) []field {
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
