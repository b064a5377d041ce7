package scan

import "testing"

// Source ignore patterns read as Flux's source-controller reads them (.gitignore's format, as
// go-git matches it): a pattern without a slash matches a name at any depth, one with a slash
// from its .sourceignore's directory; a trailing slash matches directories only; a pattern that
// matches a directory leaves out all below it; "**" is any number of directories; the last
// pattern that matches decides, so "!" takes a path back.
func TestSourceIgnore(t *testing.T) {
	for _, tc := range []struct {
		text, domain, path string
		dir                bool
		want               bool
	}{
		{"tools/", "deploy", "deploy/tools/lint.yaml", false, true},
		{"tools/", "deploy", "deploy/a/tools/lint.yaml", false, true},
		{"tools/", "deploy", "deploy/tools", false, false}, // a file named tools
		{"tools/", "deploy", "deploy/tools", true, true},
		{"tools/", "deploy", "other/tools/lint.yaml", false, false}, // outside the domain
		{"/custom/skip.yaml", "", "custom/skip.yaml", false, true},
		{"/custom/skip.yaml", "", "x/custom/skip.yaml", false, false},
		{"custom/skip.yaml", "", "x/custom/skip.yaml", false, false}, // a middle slash anchors too
		{"/x.yaml", "deploy", "deploy/x.yaml", false, true},
		{"/x.yaml", "deploy", "x.yaml", false, false},
		{"*.yaml", "", "a/b/c.yaml", false, true},
		{"*.yaml", "", "a/b/c.yml", false, false},
		{"a/**/b", "", "a/b", false, true},
		{"a/**/b", "", "a/x/y/b", false, true},
		{"a/**/b", "", "a/x/b/c.yaml", false, true},
		{"a/**/b", "", "x/a/b", false, false},
		{"**/secrets", "", "p/q/secrets/s.yaml", false, true},
		{"/*\n!/deploy", "", "deploy/x.yaml", false, false},
		{"/*\n!/deploy", "", "other/x.yaml", false, true},
		{"!/deploy\n/*", "", "deploy/x.yaml", false, true}, // the last match decides
		{"# a comment\n\n  \nx.yaml  ", "", "x.yaml", false, true},
		{"#x.yaml", "", "x.yaml", false, false},
		{"#x.yaml", "", "#x.yaml", false, false},
		{"a/**/**/b", "", "a/b", false, true},
		{"**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/c", "", "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/b", false, false},
	} {
		if got := parseIgnore(tc.text, tc.domain).ignored(tc.path, tc.dir); got != tc.want {
			t.Errorf("%q from %q: %s (dir %v) ignored = %v, want %v", tc.text, tc.domain, tc.path, tc.dir, got, tc.want)
		}
	}
}
