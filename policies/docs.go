package policies

import (
	"fmt"
	"strings"
)

// Docs renders docs/policies.md from the built-in rules' metadata. A test fails when the
// committed file is stale; `go test ./policies -run Docs -update` rewrites it.
func Docs() (string, error) {
	rules, err := Builtins()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Built-in guardrails\n\n")
	b.WriteString("<!-- Generated from the rules' # METADATA by `go test ./policies -run Docs -update`. Do not edit. -->\n\n")
	b.WriteString("gpuguard evaluates these Rego rules (`policies/rego/builtin`) on every `check` and `diff`, together\n")
	b.WriteString("with the policies in `--policy` directories and the config's `policies`. Severities: deny > warn >\n")
	b.WriteString("notice; `--fail-on` chooses the one that fails the run. `policy_data.severities` in the config\n")
	b.WriteString("changes a rule's severity or turns it off (`GPU007: warn`, `GPU009: off`).\n\n")
	b.WriteString("| id | severity | title |\n|---|---|---|\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s |\n", r.ID, strings.ToLower(r.ID), r.Severity, r.Title)
	}
	for _, r := range rules {
		fmt.Fprintf(&b, "\n## %s\n\n**%s** — severity `%s`, package `%s`.\n\n%s\n", r.ID, r.Title, r.Severity, r.Package, r.Description)
	}
	b.WriteString(`
## Thresholds (policy_data)

| key | default | used by |
|---|---|---|
| ` + "`oversized_memory_fraction`" + ` | 0.40 | the oversized verdict (GPU003) |
| ` + "`oversized_utilization_percent`" + ` | 25 | the oversized verdict from a measured profile (GPU003) |
| ` + "`tight_memory_fraction`" + ` | 0.90 | the tight verdict |
| ` + "`spot_saving_min_monthly`" + ` | 100 | GPU004 |
| ` + "`severities`" + ` | — | a map of rule id to deny, warn, notice or off |

## Suppressions

Above a Terraform block: ` + "`# gpuguard:ignore GPU003 reason=\"sized for peak\" expires=2027-01-31`" + ` (several
rules separated by commas); above a ` + "`module`" + ` block of a registry module, it waives the rule on every resource
of the module, and above an entry of the call's map or list of node groups (` + "`gpu = {`" + ` in
` + "`eks_managed_node_groups`" + `, ` + "`{ name = \"gpu\" ...`" + ` in ` + "`node_pools`" + `), on that group alone. On a Kubernetes workload: ` + "`gpuguard.dev/ignore: \"GPU003=sized for peak\"`" + `
(` + "`GPU003@2027-01-31=reason`" + ` to expire). A suppression without a reason, naming no rule, with an unreadable
date or past its expiry waives nothing and is reported by GPU010. Waived findings stay in the JSON
with ` + "`\"suppressed\": true`" + ` and do not count toward the exit code.

## Helpers

` + "`gpuguard.dollars(x)`" + ` is a builtin that gpuguard adds to Rego: it formats an amount as the reports print
money (` + "`\"$1,234.56\"`" + `, ` + "`\"-$3.10\"`" + `, rounded half away from zero to cents). The built-in rules use it
for every amount in a message; ` + "`data.gpuguard.lib.dollars(x)`" + ` is the same for older policies. It is pure,
so the sandbox keeps it.

A resource's ` + "`price_bound`" + ` (and ` + "`input.totals.price_bound`" + `) is ` + "`\"lower\"`" + ` when the service bills more than
the catalog's price of the machine (SageMaker, Vertex AI prediction) and ` + "`\"upper\"`" + ` when the capacity bills
less (flex-start). ` + "`data.gpuguard.lib.bound(x)`" + ` words it for a message: ` + "`\"at least \"`" + `, ` + "`\"at most \"`" + ` or ` + "`\"\"`" + `;
the built-in budget rule (GPU001) puts it before the amounts it quotes.

## Sandbox

Every policy, built-in or the user's, compiles against OPA's capabilities without
` + "`" + strings.Join(RemovedBuiltins(), "`, `") + "`" + `: a policy from a pull request cannot reach the network or read
the environment (and so the GitHub token). Calling one is a compile error with its file and line.
`)
	fmt.Fprintf(&b, "Evaluation stops after %g seconds, or once it has grown memory by %.1f GiB.\n", DefaultTimeout.Seconds(), float64(DefaultMemoryLimit)/(1<<30))
	return b.String(), nil
}
