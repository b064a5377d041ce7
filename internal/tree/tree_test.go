package tree

import (
	"reflect"
	"testing"
)

// A copy can be changed at any depth without changing the original.
func TestCopy(t *testing.T) {
	orig := map[string]any{"a": []any{map[string]any{"b": 1}, "x"}, "c": map[string]any{"d": true}}
	want := map[string]any{"a": []any{map[string]any{"b": 1}, "x"}, "c": map[string]any{"d": true}}
	c := CopyMap(orig)
	c["a"].([]any)[0].(map[string]any)["b"] = 2
	c["c"].(map[string]any)["e"] = 3
	c["a"].([]any)[1] = "y"
	if !reflect.DeepEqual(orig, want) {
		t.Fatalf("the original changed: %v", orig)
	}
	if Copy(nil) != nil || Copy("s") != "s" {
		t.Fatal("scalars are returned as they are")
	}
}
