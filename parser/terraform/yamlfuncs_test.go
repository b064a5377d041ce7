package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/internal/testutil"
)

func TestYAMLDecode(t *testing.T) {
	v, err := yamlDecode(`
base: &base
  type: g5.xlarge
  count: 2
pool:
  <<: *base
  count: 3              # the mapping's own key wins over the merged one
list: [1, 2.5, -3, 0x10, 1e3]
flags: {on: true, off: false, yes: yes, none: null, tilde: ~}
quoted: "true"
big: 123456789012345678901234567890
empty: {}
none: []
`)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path ...any) cty.Value {
		t.Helper()
		x := v
		for _, p := range path {
			switch k := p.(type) {
			case string:
				x = x.GetAttr(k)
			case int:
				x = x.Index(cty.NumberIntVal(int64(k)))
			}
		}
		return x
	}
	for name, c := range map[string]struct {
		got, want cty.Value
	}{
		"merged type":  {get("pool", "type"), cty.StringVal("g5.xlarge")},
		"own count":    {get("pool", "count"), cty.NumberIntVal(3)},
		"anchor count": {get("base", "count"), cty.NumberIntVal(2)},
		"float":        {get("list", 1), cty.NumberFloatVal(2.5)},
		"negative":     {get("list", 2), cty.NumberIntVal(-3)},
		"hex":          {get("list", 3), cty.NumberIntVal(16)},
		"exponent":     {get("list", 4), cty.NumberFloatVal(1000)},
		"true":         {get("flags", "on"), cty.True},
		"yes is text":  {get("flags", "yes"), cty.StringVal("yes")}, // YAML 1.2, as Terraform
		"quoted":       {get("quoted"), cty.StringVal("true")},
		"empty object": {get("empty"), cty.EmptyObjectVal},
		"empty list":   {get("none"), cty.EmptyTupleVal},
	} {
		if !c.got.RawEquals(c.want) {
			t.Errorf("%s: %#v, want %#v", name, c.got, c.want)
		}
	}
	if n := get("flags", "none"); !n.IsNull() || !get("flags", "tilde").IsNull() {
		t.Errorf("null: %#v", n)
	}
	if b := get("big"); b.Type() != cty.Number || b.AsBigFloat().Text('f', 0) != "123456789012345678901234567890" {
		t.Errorf("big: %#v", b)
	}

	if v, err := yamlDecode(""); err != nil || !v.IsNull() {
		t.Errorf("empty document: %#v, %v", v, err)
	}
	for name, src := range map[string]string{
		"two documents": "a: 1\n---\nb: 2\n",
		"syntax":        "a: [1, 2\n",
		"infinity":      "a: .inf\n",
		"list key":      "? [a, b]\n: 1\n",
		// Nine levels of ten aliases each: a billion nodes once expanded.
		"alias bomb": "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
			"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n" +
			"g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: [*h,*h,*h,*h,*h,*h,*h,*h,*h,*h]\n",
	} {
		if _, err := yamlDecode(src); err == nil || !strings.HasPrefix(err.Error(), "yamldecode: ") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestYAMLEncodeRoundTrips(t *testing.T) {
	in := cty.ObjectVal(map[string]cty.Value{
		"name":  cty.StringVal("yes"), // must come back as text, not a boolean
		"gpus":  cty.NumberIntVal(8),
		"ratio": cty.NumberFloatVal(0.5),
		"tags":  cty.MapVal(map[string]cty.Value{"team": cty.StringVal("ml")}),
		"zones": cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}),
		"spot":  cty.True,
		"none":  cty.NullVal(cty.String),
	})
	out, err := yamlEncodeFunc.Call([]cty.Value{in})
	if err != nil {
		t.Fatal(err)
	}
	back, err := yamlDecode(out.AsString())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.AsString())
	}
	if back.GetAttr("name").AsString() != "yes" || !back.GetAttr("gpus").RawEquals(cty.NumberIntVal(8)) ||
		!back.GetAttr("ratio").RawEquals(cty.NumberFloatVal(0.5)) || back.GetAttr("tags").GetAttr("team").AsString() != "ml" ||
		back.GetAttr("zones").LengthInt() != 2 || !back.GetAttr("spot").True() || !back.GetAttr("none").IsNull() {
		t.Errorf("round trip: %#v\n%s", back, out.AsString())
	}
}

func TestFileset(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	testutil.WriteFiles(t, repo, map[string]string{
		"k8s/a.yaml": "", "k8s/b.yml": "", "k8s/c.json": "", "k8s/team/d.yaml": "", "k8s/team/deep/e.yaml": "", "k8s/.hidden.yaml": "", "k8s/ärger.yml": "",
	})
	if err := os.WriteFile(filepath.Join(base, "secret.yaml"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "secret.yaml"), filepath.Join(repo, "k8s", "link.yaml")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	fn := filesetFunc(&fileAccess{base: repo, dirs: confine.NewDirs(repo)})
	for pattern, want := range map[string]string{
		"*.yaml":         ".hidden.yaml a.yaml", // the link out is not listed
		"*.{yaml,yml}":   ".hidden.yaml a.yaml b.yml ärger.yml",
		"ä*":             "ärger.yml", // patterns are UTF-8, not bytes
		"**/*.yaml":      ".hidden.yaml a.yaml team/d.yaml team/deep/e.yaml",
		"team/**":        "team/d.yaml team/deep/e.yaml",
		"[ab].y*":        "a.yaml b.yml",
		"[!a]*.yml":      "b.yml ärger.yml",
		"team/?.yaml":    "team/d.yaml",
		"nothing*.yaml":  "",
		"c.json":         "c.json",
		"team/deep/*":    "team/deep/e.yaml",
		"**/deep/e.yaml": "team/deep/e.yaml",
	} {
		got, err := fn.Call([]cty.Value{cty.StringVal("k8s"), cty.StringVal(pattern)})
		if err != nil {
			t.Errorf("%s: %v", pattern, err)
			continue
		}
		var names []string
		for it := got.ElementIterator(); it.Next(); {
			_, v := it.Element()
			names = append(names, v.AsString())
		}
		if strings.Join(names, " ") != want {
			t.Errorf("%s: %q, want %q", pattern, strings.Join(names, " "), want)
		}
	}
	if got, err := fn.Call([]cty.Value{cty.StringVal("missing"), cty.StringVal("*")}); err != nil || got.LengthInt() != 0 {
		t.Errorf("missing directory: %#v, %v", got, err)
	}
	if _, err := fn.Call([]cty.Value{cty.StringVal(".."), cty.StringVal("*.yaml")}); err == nil || !strings.Contains(err.Error(), "outside the checked directories") {
		t.Errorf("a directory outside: %v", err)
	}
	for _, bad := range []string{"{a,b", "a}", "[ab"} {
		if _, err := fn.Call([]cty.Value{cty.StringVal("k8s"), cty.StringVal(bad)}); err == nil {
			t.Errorf("pattern %q was accepted", bad)
		}
	}
}
