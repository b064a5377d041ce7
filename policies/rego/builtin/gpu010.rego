# METADATA
# title: Invalid suppression
# description: >-
#   A gpuguard:ignore comment or gpuguard.dev/ignore annotation has no reason, names no rule, has
#   an unreadable expiry date or has expired. It waives nothing until it is fixed.
# custom:
#   id: GPU010
#   severity: warn
package gpuguard.builtin.gpu010

problems := {
	"no_reason": "has no reason",
	"expired": "has expired",
	"invalid_date": "has an expiry that is not a YYYY-MM-DD date",
	"no_rule": "names no rule",
}

warn contains f if {
	some r in input.resources
	some s in r.suppressions # omitted when there are none
	s.status != "active"
	f := {
		"msg": sprintf("%s: the suppression of %s %s, so it waives nothing", [r.address, rule_name(s), problems[s.status]]),
		"id": r.id,
		"file": s.source.file,
		"line": s.source.line,
		"remediation": "Write gpuguard:ignore RULE reason=\"why\" [expires=YYYY-MM-DD] (or gpuguard.dev/ignore: \"RULE=why\") with a date in the future, or remove it.",
	}
}

rule_name(s) := s.rule if s.rule != ""

rule_name(s) := "a rule" if s.rule == ""
