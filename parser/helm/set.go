package helm

import (
	"fmt"
	"strconv"
	"strings"
)

// SetValue applies one `--set name=value` to values, as Helm's strvals does for a single pair:
// the name is a dotted path (a backslash escapes a dot: nvidia\.com/gpu), [N] indexes a list,
// and the value is a number, a boolean or null unless asString (--set-string, a Terraform set
// block with type = "string").
func SetValue(values map[string]any, name, value string, asString bool) error {
	segs, err := setPath(name)
	if err != nil {
		return fmt.Errorf("set %q: %w", name, err)
	}
	var v any = value
	if !asString {
		v = typedValue(value)
	}
	var cur any = values
	for i, s := range segs {
		last := i == len(segs)-1
		m, ok := cur.(map[string]any)
		if !ok {
			return fmt.Errorf("set %q: %s is not a map", name, strings.Join(segsKeys(segs[:i]), "."))
		}
		if s.index < 0 {
			if last {
				m[s.key] = v
				return nil
			}
			next, ok := m[s.key].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[s.key] = next
			}
			cur = next
			continue
		}
		if s.index > 1000 {
			return fmt.Errorf("set %q: index %d out of range", name, s.index)
		}
		list, _ := m[s.key].([]any)
		for len(list) <= s.index {
			list = append(list, nil)
		}
		m[s.key] = list
		if last {
			list[s.index] = v
			return nil
		}
		next, ok := list[s.index].(map[string]any)
		if !ok {
			next = map[string]any{}
			list[s.index] = next
		}
		cur = next
	}
	return nil
}

type setSeg struct {
	key   string
	index int // -1: not indexed
}

func segsKeys(segs []setSeg) []string {
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = s.key
	}
	return out
}

func setPath(name string) ([]setSeg, error) {
	var segs []setSeg
	var b strings.Builder
	flush := func(index int) error {
		if b.Len() == 0 {
			return fmt.Errorf("empty key")
		}
		segs = append(segs, setSeg{key: b.String(), index: index})
		b.Reset()
		return nil
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '\\':
			if i+1 < len(name) {
				i++
				b.WriteByte(name[i])
			}
		case '.':
			if b.Len() == 0 && len(segs) > 0 && segs[len(segs)-1].index >= 0 {
				continue // a.b[0].c: the dot after an index
			}
			if err := flush(-1); err != nil {
				return nil, err
			}
		case '[':
			end := strings.IndexByte(name[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("unclosed [")
			}
			n, err := strconv.Atoi(name[i+1 : i+end])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%q is not a list index", name[i+1:i+end])
			}
			if err := flush(n); err != nil {
				return nil, err
			}
			i += end
		default:
			b.WriteByte(c)
		}
	}
	if b.Len() > 0 {
		if err := flush(-1); err != nil {
			return nil, err
		}
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("empty name")
	}
	return segs, nil
}

// typedValue reads a --set value as Helm does: integers, booleans and null are typed, anything
// else stays a string.
func typedValue(s string) any {
	switch s {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && !strings.HasPrefix(s, "0") || s == "0" {
		return n
	}
	return s
}
