package yamlpos

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestIndex(t *testing.T) {
	var doc yaml.Node
	src := "region: us-east-1\nbudgets:\n  monthly_total: 50000\n  monthly_increase: 5000\ntraining: {micro_batch_size: 2}\nlist: [a, b]\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	l := Index(&doc)
	for path, want := range map[string]int{"region": 1, "budgets": 2, "budgets.monthly_increase": 4, "budgets.per_resource_monthly": 2,
		"training.micro_batch_size": 5, "list": 6, "list.x.y": 6, "nothing": 0, "": 0} {
		if got := l.At(path); got != want {
			t.Errorf("At(%q) = %d, want %d", path, got, want)
		}
	}
	if len(Index(nil)) != 0 {
		t.Error("a nil node")
	}
}

func TestSyntaxErrorLine(t *testing.T) {
	doc := "apiVersion: apps/v1\n" + // 1
		"kind: Deployment\n" + // 2
		"spec:\n" + // 3
		"  template:\n" + // 4
		"    spec:\n" + // 5
		"      containers:\n" + // 6
		"      - name: c\n" + // 7
		"        resources:\n" + // 8
		"          limits:\n" + // 9
		"            nvidia.com/gpu: 2\n" + // 10
		"       bad: indent\n" + // 11
		"      - name: d\n" // 12
	var n yaml.Node
	err := yaml.Unmarshal([]byte(doc), &n)
	var reported int
	if err == nil {
		t.Fatal("the document must not parse")
	}
	fmt.Sscanf(strings.TrimPrefix(err.Error(), "yaml: "), "line %d:", &reported)
	if reported == 0 || reported >= 11 {
		t.Fatalf("yaml.v3 now reports %v; this test expects it to name the enclosing block", err)
	}
	if got := SyntaxErrorLine([]byte(doc), reported); got != 11 {
		t.Errorf("SyntaxErrorLine = %d, want 11 (the badly indented key)", got)
	}
	// An unterminated quote fails only once the document ends: the reported line stands.
	if got := SyntaxErrorLine([]byte("a: 1\nb: \"open\n"), 2); got != 2 {
		t.Errorf("unterminated quote: %d, want 2", got)
	}
	if got := SyntaxErrorLine([]byte("a: 1\n"), 0); got != 0 {
		t.Errorf("valid YAML: %d, want 0", got)
	}
}

func TestSplit(t *testing.T) {
	var v struct {
		A int `yaml:"a"`
	}
	for src, want := range map[string]string{
		"a: [\n":       "1|did not find expected node content",
		"a: x\n":       "1|cannot unmarshal !!str `x` into int",
		"b: 1\nb: 2\n": `2|mapping key "b" already defined at line 1`,   // only the leading line is taken
		"\ta: 1\n":     "0|found character that cannot start any token", // yaml.v3 names no line here
	} {
		err := yaml.Unmarshal([]byte(src), &v)
		if err == nil {
			t.Fatalf("%q parsed", src)
		}
		line, msg := Split(err)
		if got := fmt.Sprintf("%d|%s", line, msg); got != want {
			t.Errorf("Split(%q) = %q, want %q", err, got, want)
		}
	}
}
