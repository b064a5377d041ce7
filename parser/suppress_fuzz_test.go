package parser

import (
	"strings"
	"testing"
	"unicode"
)

// FuzzParseSuppressionComment: only directives are read; every suppression keeps its place, and
// a rule id never carries whitespace or the separators.
func FuzzParseSuppressionComment(f *testing.F) {
	for _, s := range []string{
		`# gpuguard:ignore GPU003 reason="sized for peak" expires=2027-01-31`,
		`// gpuguard:ignore GPU003,GPU009 reason=batch`,
		`/* gpuguard:ignore gpu004 */`,
		"#\tgpuguard:ignore\tGPU003\treason=\"tabs\"",
		`# gpuguard:ignore`,
		`# not a directive`,
		`# gpuguard:ignore GPU003 reason="a \"quoted\" word"`,
	} {
		f.Add(s)
	}
	loc := Location{File: "main.tf", Line: 12}
	f.Fuzz(func(t *testing.T, line string) {
		sups, ok := ParseSuppressionComment(line, loc)
		if ok != (len(sups) > 0) {
			t.Fatalf("ok=%v with %d suppressions", ok, len(sups))
		}
		if ok && !strings.Contains(line, SuppressionDirective) {
			t.Fatalf("%q is not a directive", line)
		}
		for _, s := range sups {
			if s.Source != loc {
				t.Fatalf("suppression lost its place: %+v", s)
			}
			if strings.IndexFunc(s.Rule, unicode.IsSpace) >= 0 || strings.Contains(s.Rule, ",") {
				t.Fatalf("rule id %q from %q", s.Rule, line)
			}
		}
	})
}

// FuzzParseSuppressionAnnotation: every entry becomes one suppression at the annotation's place,
// and no separator ends up inside a rule id.
func FuzzParseSuppressionAnnotation(f *testing.F) {
	for _, s := range []string{"GPU003=sized for peak", "GPU003@2027-01-31=reason; GPU009=commit later", "gpu004", "=x", ",,;\n"} {
		f.Add(s)
	}
	loc := Location{File: "deploy.yaml", Line: 4}
	f.Fuzz(func(t *testing.T, value string) {
		for _, s := range ParseSuppressionAnnotation(value, loc) {
			if s.Source != loc {
				t.Fatalf("suppression lost its place: %+v", s)
			}
			if strings.ContainsAny(s.Rule, ",;\n=@") {
				t.Fatalf("rule id %q from %q", s.Rule, value)
			}
		}
	})
}
