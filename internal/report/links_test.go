package report

import (
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
)

const (
	headSHA = "0123456789abcdef0123456789abcdef01234567"
	baseSHA = "89abcdef0123456789abcdef0123456789abcdef"
)

// Report paths are relative to the working directory; links are relative to the repository's
// top, escaped, and never leave the repository.
func TestSourceLinkURLs(t *testing.T) {
	l := NewSourceLinks("https://github.com/", "acme/infra", headSHA, baseSHA, "/src/infra", "/src/infra/stacks")
	blob := "https://github.com/acme/infra/blob/" + headSHA + "/"
	for _, c := range []struct {
		file string
		line int
		base bool
		want string
	}{
		{"gpu/main.tf", 12, false, blob + "stacks/gpu/main.tf#L12"},
		{"gpu/main.tf", 0, false, blob + "stacks/gpu/main.tf"},
		{"gpu/main.tf", 3, true, "https://github.com/acme/infra/blob/" + baseSHA + "/stacks/gpu/main.tf#L3"},
		{"../modules/gpu (v2)/a|b.tf", 1, false, blob + "modules/gpu%20%28v2%29/a%7Cb.tf#L1"},
		{"/src/infra/k8s/train.yaml", 4, false, blob + "k8s/train.yaml#L4"},
		{"../../elsewhere/main.tf", 1, false, ""}, // outside the repository
		{"/tmp/gpuguard-base-1/main.tf", 1, false, ""},
		{"", 1, false, ""},
		{"-", 1, false, ""}, // standard input
	} {
		if got := l.URL(c.file, c.line, c.base); got != c.want {
			t.Errorf("URL(%q, %d, %v) = %q, want %q", c.file, c.line, c.base, got, c.want)
		}
	}
	noBase := NewSourceLinks("https://ghe.example.com", "acme/infra", headSHA, "", "/src/infra", "/src/infra")
	if got := noBase.URL("main.tf", 2, true); got != "" {
		t.Errorf("a base link without a base commit: %q", got)
	}
	if got := noBase.URL("main.tf", 2, false); got != "https://ghe.example.com/acme/infra/blob/"+headSHA+"/main.tf#L2" {
		t.Errorf("GitHub Enterprise link: %q", got)
	}
	for name, l := range map[string]*SourceLinks{
		"no commit":              NewSourceLinks("https://github.com", "acme/infra", "", "", "/src", "/src"),
		"not a commit":           NewSourceLinks("https://github.com", "acme/infra", "main; rm -rf", "", "/src", "/src"),
		"not a repository":       NewSourceLinks("https://github.com", "acme", headSHA, "", "/src", "/src"),
		"not a server":           NewSourceLinks("javascript:alert(1)", "acme/infra", headSHA, "", "/src", "/src"),
		"outside the repository": NewSourceLinks("https://github.com", "acme/infra", headSHA, "", "/src", "/tmp"),
	} {
		if l != nil || l.URL("main.tf", 1, false) != "" {
			t.Errorf("%s: links made: %+v", name, l)
		}
	}
}

// The comment links every resource it names to the line that declares it: head resources at the
// head commit, a removed one at the base commit, a finding about no resource to the line it cites.
func TestDiffCommentLinksResources(t *testing.T) {
	head := func(addr, file string, line int) *estimator.Estimate {
		return &estimator.Estimate{Address: addr, Root: "infra", Quantity: 1, InstanceType: "g5.xlarge", Source: parser.Location{File: file, Line: line}}
	}
	d := &result.Diff{
		Changes: []result.Change{
			{Address: "aws_instance.a", Root: "infra", Change: "added", After: head("aws_instance.a", "infra/main.tf", 7)},
			{Address: "aws_instance.b", Root: "infra", Change: "removed", Before: head("aws_instance.b", "infra/old.tf", 3)},
			{Address: "aws_instance.c", Root: "infra", Change: "unchanged", Before: head("aws_instance.c", "infra/main.tf", 20), After: head("aws_instance.c", "infra/main.tf", 21)},
		},
		Findings: []result.Finding{
			{Rule: "GPU001", Severity: result.Deny, Message: "over budget", File: ".gpuguard.yaml", Line: 2},
			{Rule: "GPU006", Severity: result.Warn, Address: "aws_instance.a", Resource: "infra|aws_instance.a", Message: "unpriced", File: "infra/main.tf", Line: 7},
		},
	}
	l := NewSourceLinks("https://github.com", "acme/infra", headSHA, baseSHA, "/repo", "/repo")
	c := DiffComment(d, 0, l)
	blob := "https://github.com/acme/infra/blob/"
	for _, want := range []string{
		"| [`aws_instance.a`](" + blob + headSHA + "/infra/main.tf#L7) | **added**",
		"| [`aws_instance.b`](" + blob + baseSHA + "/infra/old.tf#L3) | **removed**",
		"| [`aws_instance.c`](" + blob + headSHA + "/infra/main.tf#L21) |",
		"| [all resources](" + blob + headSHA + "/.gpuguard.yaml#L2) |",
		"| GPU006 | [`aws_instance.a`](" + blob + headSHA + "/infra/main.tf#L7) |",
	} {
		if !strings.Contains(c, want) {
			t.Errorf("comment lacks %q:\n%s", want, c)
		}
	}
	if plain := DiffComment(d, 0, nil); strings.Contains(plain, "](") {
		t.Errorf("links without SourceLinks:\n%s", plain)
	}
}
