package parser

import "testing"

// Names lists up to three names and counts the rest, for the messages that name several
// workloads.
func TestNames(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a and b"},
		{[]string{"a", "b", "c"}, "a, b and c"},
		{[]string{"a", "b", "c", "d"}, "a, b, c and 1 other"},
		{[]string{"a", "b", "c", "d", "e"}, "a, b, c and 2 others"},
	} {
		if got := Names(c.names); got != c.want {
			t.Errorf("Names(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}
