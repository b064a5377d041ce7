package tree

// Copy copies a tree's maps and lists; scalars are shared (they are immutable).
func Copy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return CopyMap(t)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = Copy(x)
		}
		return out
	}
	return v
}

// CopyMap is Copy for a map.
func CopyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = Copy(v)
	}
	return out
}
