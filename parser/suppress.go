package parser

import (
	"regexp"
	"strings"
	"unicode"
)

// SuppressionDirective is the comment keyword that waives a rule on the block below it.
const SuppressionDirective = "gpuguard:ignore"

var (
	ruleIDPattern    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)
	suppressionToken = regexp.MustCompile(`(\w+)=("(?:[^"\\]|\\.)*"|\S+)`)
)

// SuppressionsAbove reads the gpuguard:ignore comments on the comment lines directly above line
// n (1-based) of a Terraform or Terragrunt file; lineText returns a line's text and false past
// the file's ends.
func SuppressionsAbove(lineText func(int) (string, bool), file string, n int) []Suppression {
	var out []Suppression
	for ln := n - 1; ln >= 1; ln-- {
		text, ok := lineText(ln)
		t := strings.TrimSpace(text)
		if !ok || !(strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*")) {
			break
		}
		if sups, ok := ParseSuppressionComment(t, Location{File: file, Line: ln}); ok {
			out = append(sups, out...)
		}
	}
	return out
}

// ParseSuppressionComment reads one comment line. It returns ok=false when the line is not a
// gpuguard:ignore directive. A directive is written
//
//	# gpuguard:ignore GPU003 reason="batch job, sized for peak" expires=2027-01-31
//
// (also with // or /* */). Several rules may be listed separated by commas. Missing reasons and
// malformed dates are kept as they are: the policy engine reports them as findings.
func ParseSuppressionComment(line string, loc Location) (sups []Suppression, ok bool) {
	text := strings.TrimSpace(line)
	for _, p := range []string{"#", "//", "/*"} {
		if strings.HasPrefix(text, p) {
			text = strings.TrimSpace(strings.TrimPrefix(text, p))
			break
		}
	}
	text = strings.TrimSpace(strings.TrimSuffix(text, "*/"))
	rest, found := strings.CutPrefix(text, SuppressionDirective)
	if !found || (rest != "" && !unicode.IsSpace(rune(rest[0]))) {
		return nil, false // not the directive, or a longer word ("gpuguard:ignored")
	}
	rest = strings.TrimSpace(rest)
	rulesPart, attrs := rest, ""
	if i := strings.IndexFunc(rest, unicode.IsSpace); i >= 0 {
		rulesPart, attrs = rest[:i], rest[i:]
	}
	var reason, expires string
	for _, m := range suppressionToken.FindAllStringSubmatch(attrs, -1) {
		v := m[2]
		if strings.HasPrefix(v, `"`) {
			v = strings.ReplaceAll(strings.Trim(v, `"`), `\"`, `"`)
		}
		switch strings.ToLower(m[1]) {
		case "reason":
			reason = strings.TrimSpace(v)
		case "expires":
			expires = v
		}
	}
	for _, rule := range strings.Split(rulesPart, ",") {
		rule = strings.TrimSpace(rule)
		if rule == "" {
			continue
		}
		sups = append(sups, Suppression{Rule: strings.ToUpper(rule), Reason: reason, Expires: expires, Source: loc})
	}
	if len(sups) == 0 {
		// A directive naming no rule is still a directive: keep it so it is reported.
		sups = append(sups, Suppression{Rule: "", Reason: reason, Expires: expires, Source: loc})
	}
	return sups, true
}

// ParseSuppressionAnnotation reads the Kubernetes annotation gpuguard.dev/ignore, whose value
// is "GPU003=reason", or several such entries separated by commas, semicolons or new lines. An
// expiry date is written after the rule id: "GPU003@2027-01-31=reason".
func ParseSuppressionAnnotation(value string, loc Location) []Suppression {
	var sups []Suppression
	for _, entry := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ';' || r == '\n' }) {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		rule, reason, _ := strings.Cut(entry, "=")
		rule, expires, _ := strings.Cut(strings.TrimSpace(rule), "@")
		sups = append(sups, Suppression{
			Rule:    strings.ToUpper(strings.TrimSpace(rule)),
			Reason:  strings.TrimSpace(reason),
			Expires: strings.TrimSpace(expires),
			Source:  loc,
		})
	}
	return sups
}

// ValidRuleID reports whether s looks like a rule id (GPU003, my.custom-rule).
func ValidRuleID(s string) bool { return ruleIDPattern.MatchString(s) }
