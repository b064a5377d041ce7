package helm

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/tree"
)

// funcs are Helm's template functions: Helm's own and the Sprig functions charts commonly call,
// with Sprig's argument order and semantics (https://masterminds.github.io/sprig/,
// https://helm.sh/docs/chart_template_guide/function_list/). Functions that reach outside the
// chart (env, expandenv, getHostByName) are absent, as Helm removes the first two: a template
// calling one does not parse.
func (r *renderer) funcs() template.FuncMap {
	return r.metered(template.FuncMap{
		// text/template's own that build strings, metered like the others.
		"print":    fmt.Sprint,
		"println":  fmt.Sprintln,
		"html":     template.HTMLEscaper,
		"js":       template.JSEscaper,
		"urlquery": template.URLQueryEscaper,
		// Helm's own.
		"include": r.include,
		"tpl":     r.tpl,
		"required": func(msg string, v any) (any, error) {
			if v == nil || v == "" {
				return nil, errors.New(msg)
			}
			return v, nil
		},
		"fail":   func(msg string) (string, error) { return "", errors.New(msg) },
		"lookup": func(string, string, string, string) map[string]any { return map[string]any{} },
		"toYaml": func(v any) (string, error) {
			if !small(v) {
				return "", errTooLarge
			}
			return toYAML(v), nil
		},
		"fromYaml":      fromYAML,
		"fromYamlArray": fromYAMLArray,
		"toJson":        meteredJSON,
		"toRawJson":     meteredJSON,
		"toPrettyJson": func(v any) (string, error) {
			if !small(v) {
				return "", errTooLarge
			}
			b, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				return "", nil
			}
			return string(b), nil
		},
		"fromJson":      fromJSON,
		"fromJsonArray": fromJSONArray,
		// Defaults and flow.
		"default": func(d any, given ...any) any {
			if len(given) == 0 || empty(given[0]) {
				return d
			}
			return given[0]
		},
		"empty": empty,
		"coalesce": func(v ...any) any {
			for _, x := range v {
				if !empty(x) {
					return x
				}
			}
			return nil
		},
		"ternary": func(vt, vf any, v bool) any {
			if v {
				return vt
			}
			return vf
		},
		// Strings.
		"quote":      func(v ...any) string { return quoteAll(v, `"`) },
		"squote":     func(v ...any) string { return quoteAll(v, `'`) },
		"cat":        cat,
		"upper":      strings.ToUpper,
		"lower":      strings.ToLower,
		"title":      title,
		"trim":       strings.TrimSpace,
		"trimAll":    func(cut, s string) string { return strings.Trim(s, cut) },
		"trimPrefix": func(p, s string) string { return strings.TrimPrefix(s, p) },
		"trimSuffix": func(p, s string) string { return strings.TrimSuffix(s, p) },
		"trunc":      trunc,
		"replace":    func(old, new, s string) string { return strings.ReplaceAll(s, old, new) },
		"contains":   func(sub, s string) bool { return strings.Contains(s, sub) },
		"hasPrefix":  func(p, s string) bool { return strings.HasPrefix(s, p) },
		"hasSuffix":  func(p, s string) bool { return strings.HasSuffix(s, p) },
		"repeat": func(n int, s string) (string, error) {
			if n < 0 || n*len(s) > maxOutput {
				return "", fmt.Errorf("repeat %d times is too many", n)
			}
			return strings.Repeat(s, n), nil
		},
		"substr":  substr,
		"nospace": func(s string) string { return strings.Join(strings.Fields(s), "") },
		"indent":  indent,
		"nindent": func(n int, s string) (string, error) {
			out, err := indent(n, s)
			return "\n" + out, err
		},
		// printf as text/template's, with its width and precision bounded: "%999999999d" would
		// allocate that much.
		"printf": func(format string, args ...any) (string, error) {
			if hugeVerb.MatchString(format) {
				return "", fmt.Errorf("printf %q: a width or precision over 9999", format)
			}
			return fmt.Sprintf(format, args...), nil
		},
		"toString":  strval,
		"toStrings": func(v any) []string { return strslice(v) },
		"join":      func(sep string, v any) string { return strings.Join(strslice(v), sep) },
		"splitList": func(sep, s string) []string { return strings.Split(s, sep) },
		"split": func(sep, s string) map[string]string {
			out := map[string]string{}
			for i, p := range strings.Split(s, sep) {
				out["_"+strconv.Itoa(i)] = p
			}
			return out
		},
		"camelcase": func(s string) string { return caseWords(s, "", true) },
		"snakecase": func(s string) string { return strings.ToLower(caseWords(s, "_", false)) },
		"kebabcase": func(s string) string { return strings.ToLower(caseWords(s, "-", false)) },
		"b64enc":    func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
		"b64dec": func(s string) string {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return err.Error()
			}
			return string(b)
		},
		"sha256sum": func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) },
		"sha1sum":   func(s string) string { h := sha1.Sum([]byte(s)); return hex.EncodeToString(h[:]) },
		// Numbers (Sprig's integer math truncates to int64).
		"add": func(v ...any) int64 {
			var s int64
			for _, x := range v {
				s += toInt64(x)
			}
			return s
		},
		"add1": func(v any) int64 { return toInt64(v) + 1 },
		"sub":  func(a, b any) int64 { return toInt64(a) - toInt64(b) },
		"mul": func(a any, v ...any) int64 {
			p := toInt64(a)
			for _, x := range v {
				p *= toInt64(x)
			}
			return p
		},
		"div": func(a, b any) (int64, error) {
			if toInt64(b) == 0 {
				return 0, errors.New("division by zero")
			}
			return toInt64(a) / toInt64(b), nil
		},
		"mod": func(a, b any) (int64, error) {
			if toInt64(b) == 0 {
				return 0, errors.New("division by zero")
			}
			return toInt64(a) % toInt64(b), nil
		},
		"max": func(a any, v ...any) int64 {
			m := toInt64(a)
			for _, x := range v {
				m = max(m, toInt64(x))
			}
			return m
		},
		"min": func(a any, v ...any) int64 {
			m := toInt64(a)
			for _, x := range v {
				m = min(m, toInt64(x))
			}
			return m
		},
		"addf": func(v ...any) float64 {
			var s float64
			for _, x := range v {
				s += toFloat64(x)
			}
			return s
		},
		"subf":    func(a, b any) float64 { return toFloat64(a) - toFloat64(b) },
		"mulf":    func(a, b any) float64 { return toFloat64(a) * toFloat64(b) },
		"divf":    func(a, b any) float64 { return toFloat64(a) / toFloat64(b) },
		"int":     func(v any) int { return int(toInt64(v)) },
		"int64":   toInt64,
		"float64": toFloat64,
		"atoi":    func(s string) int { n, _ := strconv.Atoi(s); return n },
		"floor":   func(v any) float64 { return math.Floor(toFloat64(v)) },
		"ceil":    func(v any) float64 { return math.Ceil(toFloat64(v)) },
		"round": func(v any, p int) float64 {
			m := math.Pow(10, float64(p))
			return math.Round(toFloat64(v)*m) / m
		},
		"until":     func(n int) ([]int, error) { return untilStep(0, n, 1) },
		"untilStep": untilStep,
		// Lists.
		"list": func(v ...any) []any { return v },
		"first": func(l any) any {
			s := slice(l)
			if len(s) == 0 {
				return nil
			}
			return s[0]
		},
		"last": func(l any) any {
			s := slice(l)
			if len(s) == 0 {
				return nil
			}
			return s[len(s)-1]
		},
		"rest": func(l any) []any {
			s := slice(l)
			if len(s) == 0 {
				return nil
			}
			return s[1:]
		},
		"initial": func(l any) []any {
			s := slice(l)
			if len(s) == 0 {
				return nil
			}
			return s[:len(s)-1]
		},
		"append":     func(l any, v any) []any { return append(slice(l), v) },
		"mustAppend": func(l any, v any) []any { return append(slice(l), v) },
		"prepend":    func(l any, v any) []any { return append([]any{v}, slice(l)...) },
		"concat": func(ls ...any) []any {
			var out []any
			for _, l := range ls {
				out = append(out, slice(l)...)
			}
			return out
		},
		"has": func(needle, hay any) bool { return containsValue(slice(hay), needle) },
		"without": func(l any, omit ...any) []any {
			return keep(l, func(_ []any, x any) bool { return !containsValue(omit, x) })
		},
		"uniq": func(l any) []any {
			return keep(l, func(kept []any, x any) bool { return !containsValue(kept, x) })
		},
		"compact": func(l any) []any {
			return keep(l, func(_ []any, x any) bool { return !empty(x) })
		},
		"reverse": func(l any) []any {
			s := slice(l)
			out := make([]any, len(s))
			for i, x := range s {
				out[len(s)-1-i] = x
			}
			return out
		},
		"sortAlpha": func(l any) []string { s := strslice(l); sort.Strings(s); return s },
		// Dictionaries.
		"dict": func(v ...any) map[string]any {
			d := map[string]any{}
			for i := 0; i < len(v); i += 2 {
				if i+1 < len(v) {
					d[strval(v[i])] = v[i+1]
				} else {
					d[strval(v[i])] = ""
				}
			}
			return d
		},
		"get": func(d map[string]any, k string) any {
			if v, ok := d[k]; ok {
				return v
			}
			return ""
		},
		"set":    func(d map[string]any, k string, v any) map[string]any { d[k] = v; return d },
		"unset":  func(d map[string]any, k string) map[string]any { delete(d, k); return d },
		"hasKey": func(d map[string]any, k string) bool { _, ok := d[k]; return ok },
		"keys": func(ds ...map[string]any) []string {
			var out []string
			for _, d := range ds {
				for k := range d {
					out = append(out, k)
				}
			}
			return out
		},
		"values": func(d map[string]any) []any {
			var out []any
			for _, v := range d {
				out = append(out, v)
			}
			return out
		},
		"pluck": func(k string, ds ...map[string]any) []any {
			var out []any
			for _, d := range ds {
				if v, ok := d[k]; ok {
					out = append(out, v)
				}
			}
			return out
		},
		"pick": func(d map[string]any, ks ...string) map[string]any {
			out := map[string]any{}
			for _, k := range ks {
				if v, ok := d[k]; ok {
					out[k] = v
				}
			}
			return out
		},
		"omit": func(d map[string]any, ks ...string) map[string]any {
			out := map[string]any{}
			for k, v := range d {
				out[k] = v
			}
			for _, k := range ks {
				delete(out, k)
			}
			return out
		},
		"merge": func(dst map[string]any, srcs ...map[string]any) map[string]any {
			for _, s := range srcs {
				dst = mergeInto(dst, s, fill)
			}
			return dst
		},
		"mergeOverwrite": func(dst map[string]any, srcs ...map[string]any) map[string]any {
			for _, s := range srcs {
				dst = mergeInto(dst, s, override)
			}
			return dst
		},
		"deepCopy": func(v any) (any, error) {
			if !small(v) {
				return nil, errTooLarge
			}
			return tree.Copy(v), nil
		},
		"dig": dig,
		// Types.
		"kindOf":    func(v any) string { return kindOf(v) },
		"kindIs":    func(k string, v any) bool { return kindOf(v) == k },
		"typeOf":    func(v any) string { return fmt.Sprintf("%T", v) },
		"typeIs":    func(t string, v any) bool { return fmt.Sprintf("%T", v) == t },
		"deepEqual": reflect.DeepEqual,
		// Regular expressions.
		"regexMatch": func(re, s string) (bool, error) {
			return withRegexp(re, func(x *regexp.Regexp) bool { return x.MatchString(s) })
		},
		"regexFind": func(re, s string) (string, error) {
			return withRegexp(re, func(x *regexp.Regexp) string { return x.FindString(s) })
		},
		"regexFindAll": func(re, s string, n int) ([]string, error) {
			return withRegexp(re, func(x *regexp.Regexp) []string { return x.FindAllString(s, n) })
		},
		"regexReplaceAll": func(re, s, repl string) (string, error) {
			return withRegexp(re, func(x *regexp.Regexp) string { return x.ReplaceAllString(s, repl) })
		},
		"regexReplaceAllLiteral": func(re, s, repl string) (string, error) {
			return withRegexp(re, func(x *regexp.Regexp) string { return x.ReplaceAllLiteralString(s, repl) })
		},
		"regexSplit": func(re, s string, n int) ([]string, error) {
			return withRegexp(re, func(x *regexp.Regexp) []string { return x.Split(s, n) })
		},
		"semverCompare": semverCompare,
		// Deterministic stand-ins: a render must give the same output every run.
		"now":          func() time.Time { return renderTime },
		"date":         func(layout string, t any) string { return asTime(t).Format(layout) },
		"uuidv4":       func() string { return "00000000-0000-4000-8000-000000000000" },
		"randAlphaNum": func(n int) string { return strings.Repeat("x", max(0, min(n, 1024))) },
		"randAlpha":    func(n int) string { return strings.Repeat("x", max(0, min(n, 1024))) },
		"randNumeric":  func(n int) string { return strings.Repeat("0", max(0, min(n, 1024))) },
	})
}

// maxProduced bounds what the functions of one chart's rendering may produce in all (string
// bytes, list and map entries): a template that doubles a string or a list in a loop would
// otherwise fill the memory long before its output is written.
const maxProduced = 4 * maxOutput

// maxNodes bounds a value serialized or copied whole: lists that hold themselves twice over,
// a few dozen levels deep, expand to more than any memory.
const maxNodes = 1 << 20

var errTooLarge = fmt.Errorf("a value of more than %d elements", maxNodes)

// metered wraps every function so that what it returns counts against maxProduced. A function
// that may not return an error fails by panicking, which text/template turns into an error.
func (r *renderer) metered(m template.FuncMap) template.FuncMap {
	for name, f := range m {
		fv := reflect.ValueOf(f)
		m[name] = reflect.MakeFunc(fv.Type(), func(args []reflect.Value) []reflect.Value {
			// A result is rarely larger than its arguments together (concat, cat, printf): a
			// call whose arguments would overrun the budget fails before it allocates.
			in := 0
			for _, a := range args {
				in += weight(a)
			}
			if r.produced+in > maxProduced {
				panic(errProduced)
			}
			var out []reflect.Value
			if fv.Type().IsVariadic() {
				out = fv.CallSlice(args)
			} else {
				out = fv.Call(args)
			}
			for _, v := range out {
				r.produced += weight(v)
				// A list or map holding another twice over, nested, is small in memory but
				// expands past any memory when printed or serialized: refused where it is made.
				if k := v.Kind(); (k == reflect.Slice || k == reflect.Map || k == reflect.Interface) && v.CanInterface() && !small(v.Interface()) {
					panic(errTooLarge)
				}
			}
			if r.produced > maxProduced {
				panic(errProduced)
			}
			return out
		}).Interface()
	}
	return m
}

var errProduced = fmt.Errorf("the chart's functions produce more than %d bytes", maxProduced)

// weight is what a value counts against maxProduced: a string its bytes, a list or map its
// entries at what each costs in memory; what a variadic argument holds counts too. It looks at
// no more than a few hundred values, so that weighing a value that shares its parts costs
// nothing like expanding it.
func weight(v reflect.Value) int {
	visits := 256
	return weigh(v, &visits)
}

func weigh(v reflect.Value, visits *int) int {
	if *visits--; *visits < 0 {
		return 0
	}
	switch v.Kind() {
	case reflect.String:
		return v.Len()
	case reflect.Slice, reflect.Array:
		n := v.Len() * 16
		if k := v.Type().Elem().Kind(); k == reflect.Interface || k == reflect.String {
			for i := range min(v.Len(), 64) { // the first entries: a variadic call's strings
				n += weigh(v.Index(i), visits)
			}
		}
		return n
	case reflect.Map:
		return v.Len() * 64
	case reflect.Interface:
		if !v.IsNil() {
			return weigh(v.Elem(), visits)
		}
	}
	return 0
}

// small reports whether a value has at most maxNodes elements, counting shared parts each time
// they are reached, as serializing them would.
func small(v any) bool {
	n := 0
	var walk func(any) bool
	walk = func(v any) bool {
		n++
		if n > maxNodes {
			return false
		}
		switch t := v.(type) {
		case map[string]any:
			for _, x := range t {
				if !walk(x) {
					return false
				}
			}
		case []any:
			for _, x := range t {
				if !walk(x) {
					return false
				}
			}
		}
		return true
	}
	return walk(v)
}

func meteredJSON(v any) (string, error) {
	if !small(v) {
		return "", errTooLarge
	}
	return toJSON(v), nil
}

// renderTime is what now returns: fixed, so a chart renders the same every time.
var renderTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func asTime(v any) time.Time {
	switch t := v.(type) {
	case time.Time:
		return t
	case int, int64, float64:
		return time.Unix(toInt64(t), 0).UTC()
	}
	return renderTime
}

// include executes a named template into a string, within the call and nesting limits.
func (r *renderer) include(name string, data any) (string, error) {
	if err := r.enter(); err != nil {
		return "", err
	}
	defer func() { r.depth-- }()
	var buf bytes.Buffer
	if err := r.set.ExecuteTemplate(&limited{w: &buf, r: r}, name, data); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// tpl renders a string as a template with the chart's named templates in scope.
func (r *renderer) tpl(text string, data any) (string, error) {
	if err := r.enter(); err != nil {
		return "", err
	}
	defer func() { r.depth-- }()
	t, err := r.set.Clone()
	if err != nil {
		return "", err
	}
	if _, err := t.New("tpl").Parse(text); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&limited{w: &buf, r: r}, "tpl", data); err != nil {
		return "", err
	}
	return buf.String(), nil
}

func (r *renderer) enter() error {
	r.calls++
	r.depth++
	if r.calls > maxCalls {
		return fmt.Errorf("more than %d include and tpl calls", maxCalls)
	}
	if r.depth > maxDepth {
		r.depth--
		return fmt.Errorf("include and tpl nested more than %d deep", maxDepth)
	}
	return nil
}

func toYAML(v any) string {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	_ = enc.Close()
	return strings.TrimSuffix(buf.String(), "\n")
}

func fromYAML(s string) map[string]any {
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		return map[string]any{"Error": err.Error()}
	}
	if m == nil {
		m = map[string]any{}
	}
	return normalize(m).(map[string]any)
}

func fromYAMLArray(s string) []any {
	var a []any
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		return []any{err.Error()}
	}
	return normalize(a).([]any)
}

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

func fromJSON(s string) map[string]any {
	m := map[string]any{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return map[string]any{"Error": err.Error()}
	}
	return m
}

func fromJSONArray(s string) []any {
	var a []any
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return []any{err.Error()}
	}
	return a
}

// empty is Sprig's notion: the zero value of any type, and empty collections.
func empty(v any) bool {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return true
	}
	switch rv.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return rv.Len() == 0
	case reflect.Bool:
		return !rv.Bool()
	case reflect.Complex64, reflect.Complex128:
		return rv.Complex() == 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return rv.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return rv.IsNil()
	case reflect.Struct:
		return false
	}
	return false
}

func strval(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []byte:
		return string(t)
	case error:
		return t.Error()
	case fmt.Stringer:
		return t.String()
	case nil:
		return ""
	}
	return fmt.Sprintf("%v", v)
}

func strslice(v any) []string {
	switch t := v.(type) {
	case []string:
		return append([]string(nil), t...)
	case nil:
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		var out []string
		for i := range rv.Len() {
			if x := rv.Index(i).Interface(); x != nil {
				out = append(out, strval(x))
			}
		}
		return out
	}
	return []string{strval(v)}
}

func slice(v any) []any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out
}

func quoteAll(v []any, q string) string {
	var out []string
	for _, x := range v {
		if x == nil {
			continue
		}
		if q == `"` {
			out = append(out, strconv.Quote(strval(x)))
		} else {
			out = append(out, q+strval(x)+q)
		}
	}
	return strings.Join(out, " ")
}

func cat(v ...any) string {
	var out []string
	for _, x := range v {
		if x != nil {
			out = append(out, strval(x))
		}
	}
	return strings.Join(out, " ")
}

func title(s string) string {
	prev := ' '
	return strings.Map(func(r rune) rune {
		defer func() { prev = r }()
		if unicode.IsSpace(prev) || prev == '-' || prev == '_' {
			return unicode.ToTitle(r)
		}
		return r
	}, s)
}

func caseWords(s, sep string, camel bool) string {
	words := strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' || r == ' ' })
	for i, w := range words {
		if camel {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, sep)
}

func trunc(c int, s string) string {
	if c < 0 && len(s)+c > 0 {
		return s[len(s)+c:]
	}
	if c >= 0 && len(s) > c {
		return s[:c]
	}
	return s
}

func substr(start, end int, s string) string {
	if start < 0 {
		return s[:min(max(end, 0), len(s))]
	}
	if end < 0 || end > len(s) {
		return s[min(start, len(s)):]
	}
	return s[min(start, end):end]
}

func indent(n int, s string) (string, error) {
	if n > 1000 || n*(strings.Count(s, "\n")+1) > maxOutput {
		return "", fmt.Errorf("indent %d is too deep", n)
	}
	pad := strings.Repeat(" ", max(n, 0))
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad), nil
}

// hugeVerb finds a printf verb with a width or precision of five digits or more.
var hugeVerb = regexp.MustCompile(`%[-+# 0]*(\d{5,}|\d*\.\d{5,})`)

func toInt64(v any) int64 {
	switch t := v.(type) {
	case int:
		return int64(t)
	case int64:
		return t
	case int32:
		return int64(t)
	case uint64:
		return int64(t)
	case float64:
		return int64(t)
	case float32:
		return int64(t)
	case bool:
		if t {
			return 1
		}
		return 0
	case string:
		if n, err := strconv.ParseInt(strings.TrimSpace(t), 0, 64); err == nil {
			return n
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(t), 64); err == nil {
			return int64(f)
		}
	}
	return 0
}

func toFloat64(v any) float64 {
	switch t := v.(type) {
	case float64:
		return t
	case string:
		f, _ := strconv.ParseFloat(strings.TrimSpace(t), 64)
		return f
	}
	return float64(toInt64(v))
}

func untilStep(start, stop, step int) ([]int, error) {
	if step == 0 {
		return nil, nil
	}
	// In floating point: stop-start may overflow an int.
	if (float64(stop)-float64(start))/float64(step) > maxList {
		return nil, fmt.Errorf("a list of more than %d numbers", maxList)
	}
	var out []int
	if step > 0 {
		for i := start; i < stop; i += step {
			out = append(out, i)
		}
	} else {
		for i := start; i > stop; i += step {
			out = append(out, i)
		}
	}
	return out, nil
}

func kindOf(v any) string {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return "invalid"
	}
	return rv.Kind().String()
}

// dig reads a path of keys from a map, the last two arguments being the default and the map.
func dig(ps ...any) (any, error) {
	if len(ps) < 3 {
		return nil, errors.New("dig needs at least a key, a default and a map")
	}
	d, ok := ps[len(ps)-1].(map[string]any)
	if !ok {
		return nil, errors.New("dig: the last argument is not a map")
	}
	def := ps[len(ps)-2]
	var cur any = d
	for _, k := range ps[:len(ps)-2] {
		m, ok := cur.(map[string]any)
		if !ok {
			return def, nil
		}
		if cur, ok = m[strval(k)]; !ok {
			return def, nil
		}
	}
	return cur, nil
}

// mergeMode says how mergeInto treats a key both maps hold.
type mergeMode int

const (
	fill     mergeMode = iota // Sprig's merge: dst keeps its values; src fills what is missing or empty
	override                  // Sprig's mergeOverwrite: src wins, except with an empty value
	coalesce                  // Helm's values: src wins, empty values too; a null removes the key
)

// mergeInto merges src into dst, recursively where both hold maps, as mode says.
func mergeInto(dst, src map[string]any, mode mergeMode) map[string]any {
	if dst == nil {
		dst = map[string]any{}
	}
	for k, sv := range src {
		dv, ok := dst[k]
		dm, dIsMap := dv.(map[string]any)
		sm, sIsMap := sv.(map[string]any)
		switch {
		case ok && dIsMap && sIsMap:
			dst[k] = mergeInto(dm, sm, mode)
		case mode == coalesce && sv == nil:
			delete(dst, k)
		case !ok, mode == coalesce, mode == override && !empty(sv), mode == fill && empty(dv):
			dst[k] = sv
		}
	}
	return dst
}

// semverCompare checks a version against a constraint, for what charts use it for: picking an
// API version by the cluster's version (">=1.19-0", "<1.22-0", "^1.2", "~1.2.3", ranges joined by
// spaces or commas, alternatives by ||). Pre-release suffixes are ignored.
func semverCompare(constraint, version string) (bool, error) {
	v, err := parseVersion(version)
	if err != nil {
		return false, err
	}
	for _, alt := range strings.Split(constraint, "||") {
		ok := true
		for _, c := range strings.FieldsFunc(alt, func(r rune) bool { return r == ' ' || r == ',' }) {
			op := strings.TrimRight(c, "0123456789.xX*-+abcdefghijklmnopqrstuvwyz")
			want, err := parseVersion(strings.TrimPrefix(c, op))
			if err != nil {
				return false, err
			}
			cmp := compareVersions(v, want)
			switch op {
			case ">=":
				ok = ok && cmp >= 0
			case ">":
				ok = ok && cmp > 0
			case "<=":
				ok = ok && cmp <= 0
			case "<":
				ok = ok && cmp < 0
			case "!=":
				ok = ok && cmp != 0
			case "", "=":
				ok = ok && cmp == 0
			case "~":
				ok = ok && cmp >= 0 && v[0] == want[0] && v[1] == want[1]
			case "^":
				ok = ok && cmp >= 0 && v[0] == want[0]
			default:
				return false, fmt.Errorf("semverCompare: operator %q is not understood", op)
			}
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

func parseVersion(s string) ([3]int, error) {
	var v [3]int
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	s, _, _ = strings.Cut(s, "-")
	s, _, _ = strings.Cut(s, "+")
	parts := strings.Split(s, ".")
	if len(parts) == 0 || len(parts) > 3 || parts[0] == "" {
		return v, fmt.Errorf("%q is not a version", s)
	}
	for i, p := range parts {
		if p == "x" || p == "X" || p == "*" {
			break
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, fmt.Errorf("%q is not a version", s)
		}
		v[i] = n
	}
	return v, nil
}

func compareVersions(a, b [3]int) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// apiVersions is .Capabilities.APIVersions: the built-in groups and versions a current cluster
// serves, with Has as Helm provides it.
type apiVersions []string

// Has reports whether the version (group/version or group/version/Kind) is available.
func (a apiVersions) Has(v string) bool { return slices.Contains(a, v) }

// containsValue reports whether list holds a value deeply equal to v, as Sprig compares.
func containsValue(list []any, v any) bool {
	return slices.ContainsFunc(list, func(x any) bool { return reflect.DeepEqual(x, v) })
}

// withRegexp compiles re and applies f to it; a bad expression is the template's error.
func withRegexp[T any](re string, f func(*regexp.Regexp) T) (T, error) {
	x, err := regexp.Compile(re)
	if err != nil {
		var zero T
		return zero, err
	}
	return f(x), nil
}

// capabilities is what .Capabilities says: a Kubernetes 1.31 cluster with its built-in APIs, as
// `helm template` assumes a current cluster without asking one.
var capabilities = map[string]any{
	"KubeVersion": map[string]any{"Version": "v1.31.0", "GitVersion": "v1.31.0", "Major": "1", "Minor": "31"},
	"APIVersions": apiVersions{"v1", "apps/v1", "batch/v1", "autoscaling/v1", "autoscaling/v2", "policy/v1",
		"networking.k8s.io/v1", "rbac.authorization.k8s.io/v1", "storage.k8s.io/v1", "scheduling.k8s.io/v1",
		"node.k8s.io/v1", "coordination.k8s.io/v1", "discovery.k8s.io/v1", "admissionregistration.k8s.io/v1",
		"apiextensions.k8s.io/v1", "apps/v1/Deployment", "apps/v1/StatefulSet", "apps/v1/DaemonSet",
		"batch/v1/Job", "batch/v1/CronJob", "autoscaling/v2/HorizontalPodAutoscaler", "policy/v1/PodDisruptionBudget",
		"networking.k8s.io/v1/Ingress"},
	"HelmVersion": map[string]any{"Version": "v3.16.0"},
}

// files is .Files: the chart's files other than its templates.
type files map[string][]byte

// Get returns a file's content, "" when there is none.
func (f files) Get(name string) string { return string(f[name]) }

// GetBytes returns a file's content as bytes.
func (f files) GetBytes(name string) []byte { return f[name] }

// Glob returns the files whose paths match the pattern.
func (f files) Glob(pattern string) files {
	out := files{}
	for name, data := range f {
		if ok, _ := path.Match(pattern, name); ok {
			out[name] = data
		}
	}
	return out
}

// Lines returns a file's lines.
func (f files) Lines(name string) []string {
	if f[name] == nil {
		return nil
	}
	return strings.Split(strings.TrimRight(string(f[name]), "\n"), "\n")
}

// AsConfig renders the files as a ConfigMap's data: base name to content.
func (f files) AsConfig() string {
	m := map[string]string{}
	for name, data := range f {
		m[path.Base(name)] = string(data)
	}
	return toYAML(m)
}

// AsSecrets renders the files as a Secret's data: base name to base64 content.
func (f files) AsSecrets() string {
	m := map[string]string{}
	for name, data := range f {
		m[path.Base(name)] = base64.StdEncoding.EncodeToString(data)
	}
	return toYAML(m)
}

// keep is the elements of a list that ok accepts, in order; ok also sees those kept so far.
func keep(l any, ok func(kept []any, x any) bool) []any {
	var out []any
	for _, x := range slice(l) {
		if ok(out, x) {
			out = append(out, x)
		}
	}
	return out
}
