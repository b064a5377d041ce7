package helm

import (
	"reflect"
	"testing"
)

func TestSetValue(t *testing.T) {
	vals := map[string]any{"resources": map[string]any{"limits": map[string]any{"cpu": "2"}}}
	for _, s := range []struct {
		name, value string
		asString    bool
	}{
		{`resources.limits.nvidia\.com/gpu`, "2", false},
		{"replicaCount", "3", false},
		{"image.tag", "0123", false},
		{"tolerations[0].key", "nvidia.com/gpu", false},
		{"tolerations[0].operator", "Exists", false},
		{"enabled", "true", false},
		{"version", "1", true},
	} {
		if err := SetValue(vals, s.name, s.value, s.asString); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]any{
		"resources":    map[string]any{"limits": map[string]any{"cpu": "2", "nvidia.com/gpu": int64(2)}},
		"replicaCount": int64(3), "image": map[string]any{"tag": "0123"},
		"tolerations": []any{map[string]any{"key": "nvidia.com/gpu", "operator": "Exists"}},
		"enabled":     true, "version": "1",
	}
	if !reflect.DeepEqual(vals, want) {
		t.Fatalf("got %#v", vals)
	}
	for _, bad := range []string{"", "a..b", "a[x]", "a[", "a[99999]"} {
		if err := SetValue(vals, bad, "1", false); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzSetValue: any name and value give a value set or an error, never a panic.
func FuzzSetValue(f *testing.F) {
	for _, n := range []string{`a.b`, `resources.limits.nvidia\.com/gpu`, `a[0].b[1]`, `a\`, `[0]`, `a..b`, `a[`} {
		f.Add(n, "1")
	}
	f.Fuzz(func(t *testing.T, name, value string) {
		vals := map[string]any{"a": "scalar"}
		_ = SetValue(vals, name, value, false)
	})
}

// MergeValues merges documents as helm install -f a -f b does: maps key by key, the later value
// wins, a null removes the key, and the documents themselves are left as they were.
func TestMergeValues(t *testing.T) {
	a := map[string]any{"config": map[string]any{"name": "a", "default": "x"}, "keep": 1}
	b := map[string]any{"config": map[string]any{"name": "b", "default": nil}, "added": true}
	got := MergeValues(a, b)
	want := map[string]any{"config": map[string]any{"name": "b"}, "keep": float64(1), "added": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged %v, want %v", got, want)
	}
	if a["config"].(map[string]any)["name"] != "a" || len(a["config"].(map[string]any)) != 2 {
		t.Errorf("the first document was changed: %v", a)
	}
}
