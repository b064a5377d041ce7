package policies

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/config"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
)

// The built-in rules' own Rego tests run here, inside go test, in the sandbox.
func TestBuiltinRegoTests(t *testing.T) {
	results, err := RunTests(context.Background(), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	perPackage := map[string]int{}
	for _, r := range results {
		if !r.Pass {
			t.Errorf("%s.%s (%s:%d): %s", r.Package, r.Name, r.File, r.Line, r.Error)
		}
		perPackage[strings.TrimSuffix(r.Package, "_test")]++
	}
	rules, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if n := perPackage[r.Package]; n < 2 {
			t.Errorf("%s (%s) has %d tests; every built-in needs passing and failing cases", r.ID, r.Package, n)
		}
	}
}

func TestEveryBuiltinHasMetadata(t *testing.T) {
	rules, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) < 10 {
		t.Fatalf("only %d built-in rules", len(rules))
	}
	seen := map[string]bool{}
	for _, r := range rules {
		if r.ID == "" || r.Title == "" || r.Description == "" || r.Severity.Rank() == 0 {
			t.Errorf("%s: incomplete metadata %+v", r.File, r)
		}
		if seen[r.ID] {
			t.Errorf("duplicate rule id %s", r.ID)
		}
		seen[r.ID] = true
		if _, err := builtinFS.ReadFile("rego/builtin/" + strings.TrimPrefix(strings.TrimSuffix(r.File, ".rego"), "builtin/") + "_test.rego"); err != nil {
			t.Errorf("%s has no _test.rego", r.ID)
		}
	}
}

func writePolicy(t *testing.T, name, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestSandboxRefusesNetworkAndEnvironment(t *testing.T) {
	for name, body := range map[string]string{
		"http.send":   `deny contains msg if { r := http.send({"method": "GET", "url": "http://127.0.0.1:1/"}); msg := r.raw_body }`,
		"opa.runtime": `deny contains msg if { msg := opa.runtime().env.GITHUB_TOKEN }`,
		"net":         `deny contains msg if { ips := net.lookup_ip_addr("example.com"); msg := sprintf("%v", [ips]) }`,
	} {
		dir := writePolicy(t, "leak.rego", "package main\n\n"+body+"\n")
		_, err := New(context.Background(), Options{Dirs: []string{dir}})
		ce, ok := err.(*CompileError)
		if !ok || len(ce.Errors) == 0 || !strings.HasSuffix(ce.Errors[0].File, "leak.rego") || ce.Errors[0].Line != 3 || !strings.Contains(ce.Errors[0].Message, "undefined function") {
			t.Errorf("%s: compile error = %#v", name, err)
		}
	}
}

func TestTokenIsNotReadable(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghs_secret_for_the_test")
	// Every way a policy could reach the environment is removed, so this policy cannot even
	// compile; and the built-ins that remain see only the input.
	dir := writePolicy(t, "env.rego", `package main

deny contains msg if {
	some k, v in opa.runtime().env
	msg := sprintf("%s=%s", [k, v])
}
`)
	if _, err := New(context.Background(), Options{Dirs: []string{dir}}); err == nil {
		t.Fatal("a policy reading opa.runtime() compiled")
	}
	for _, b := range RemovedBuiltins() {
		if b == "opa.runtime" {
			return
		}
	}
	t.Fatal("opa.runtime is not among the removed builtins")
}

func TestEvaluationHasATimeLimit(t *testing.T) {
	dir := writePolicy(t, "slow.rego", `package main

deny contains msg if {
	n := count([x | some x in numbers.range(1, 200000); some y in numbers.range(1, 200000); x == y + 1])
	msg := sprintf("%d", [n])
}
`)
	e, err := New(context.Background(), Options{Dirs: []string{dir}, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = e.Evaluate(context.Background(), NewInput(nil, estimator.Totals{}, nil, &config.Config{}))
	if err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("evaluation ran %s past its 200ms limit", d)
	}
}

func estimateFor(addr string, monthly float64) estimator.Estimate {
	m := money.Amount(money.FromDollars(monthly))
	return estimator.Estimate{Address: addr, Kind: parser.KindTerraform, Provider: "aws", PurchaseOption: parser.OnDemand, HoursPerMonth: 730,
		MonthlyCost: &m, Recommendations: []estimator.Recommendation{}, Source: parser.Location{File: "main.tf", Line: 7},
		Fit: &estimator.Fit{Verdict: estimator.VerdictUnknown}}
}

func TestUserPoliciesFollowConftestConventions(t *testing.T) {
	dir := writePolicy(t, "custom.rego", `# METADATA
# title: Owner label
# custom:
#   id: ACME001
package gpuguard.acme

deny contains {"msg": sprintf("no owner for %s a month", [gpuguard.dollars(r.monthly_cost)]), "address": r.address, "remediation": "add owner"} if {
	some r in input.resources
	not r.tags.owner
}

warn contains "a plain string warning" if true
`)
	if err := os.WriteFile(filepath.Join(dir, "main.rego"), []byte("package main\n\nviolation contains {\"msg\": \"old style\", \"rule\": \"LEGACY1\"} if true\nnotice contains \"fyi\" if true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := New(context.Background(), Options{Dirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	es := []estimator.Estimate{estimateFor("aws_instance.x", 1234.5)}
	es[0].Tags = map[string]string{"team": "a", "project": "b", "env": "c"}
	fs, err := e.Evaluate(context.Background(), NewInput(es, estimator.Sum(es), nil, &config.Config{PolicyData: map[string]any{"severities": map[string]any{"GPU007": "off"}}}))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]result.Finding{}
	for _, f := range fs {
		got[f.Rule+"/"+string(f.Severity)] = f
	}
	if f, ok := got["ACME001/deny"]; !ok || f.Address != "aws_instance.x" || f.File != "main.tf" || f.Line != 7 || f.Remediation != "add owner" || f.Title != "Owner label" ||
		f.Message != "no owner for $1,234.50 a month" {
		t.Errorf("ACME001: %+v", f)
	}
	for _, k := range []string{"ACME001/warn", "LEGACY1/deny", "main/notice"} {
		if _, ok := got[k]; !ok {
			t.Errorf("missing %s in %v", k, fs)
		}
	}
	if _, ok := got["GPU007/notice"]; ok {
		t.Error("GPU007 was turned off in policy_data.severities")
	}
}

// The rule sets are evaluated as separate queries, concurrently: every deny, violation, warn and
// notice set of every package under gpuguard and main is read exactly once (a package spread
// over two files, nested packages, complete rules, undefined sets), and nothing outside them.
func TestEvaluateReadsEverySetOnce(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"a.rego":      "package main\n\ndeny contains \"a\" if true\n",
		"b.rego":      "package main\n\ndeny contains \"b\" if true\n",
		"sub.rego":    "package main.sub\n\nwarn contains \"sub\" if true\n",
		"team.rego":   "package gpuguard.team\n\nviolation contains \"v\" if true\n\nnotice := {\"n\"}\n\nwarn := {\"never\"} if false\n",
		"report.rego": "package gpuguard.report\n\nsummary := {\"deny\": {\"not a rule set\"}}\n",
		"other.rego":  "package other\n\ndeny contains \"outside\" if true\n",
		"helper.rego": "package main.helpers\n\nwarn(x) := sprintf(\"helper %s\", [x])\n",
	})
	e, err := New(context.Background(), Options{Dirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := e.Evaluate(context.Background(), NewInput(nil, estimator.Totals{}, nil, &config.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s/%s/%s", f.Rule, f.Severity, f.Message))
	}
	want := []string{"gpuguard.team/notice/n", "gpuguard.team/deny/v", "main/deny/a", "main/deny/b", "main.sub/warn/sub"}
	if !slices.Equal(got, want) {
		t.Errorf("findings\n got %q\nwant %q", got, want)
	}
}

// A set that fails at evaluation fails the whole evaluation, naming the set; the other sets'
// goroutines stop and nothing is returned half-done.
func TestEvaluateReportsTheFailingSet(t *testing.T) {
	dir := writePolicy(t, "conflict.rego", `package gpuguard.acme

size := count(input.resources)

size := 99 if true

warn contains sprintf("%d resources", [size]) if true
`)
	e, err := New(context.Background(), Options{Dirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	es := []estimator.Estimate{estimateFor("aws_instance.x", 100)}
	fs, err := e.Evaluate(context.Background(), NewInput(es, estimator.Sum(es), nil, &config.Config{}))
	if err == nil || !strings.Contains(err.Error(), "data.gpuguard.acme.warn") || !strings.Contains(err.Error(), "conflict") || fs != nil {
		t.Fatalf("findings %v, err = %v", fs, err)
	}
}

func TestReservedPackageAndBadRego(t *testing.T) {
	dir := writePolicy(t, "x.rego", "package gpuguard.builtin.gpu003\n\nwarn contains \"shadow\" if true\n")
	if _, err := New(context.Background(), Options{Dirs: []string{dir}}); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("err = %v", err)
	}
	dir = writePolicy(t, "broken.rego", "package main\n\ndeny contains msg if {\n  msg := \n}\n")
	_, err := New(context.Background(), Options{Dirs: []string{dir}})
	ce, ok := err.(*CompileError)
	if !ok || !strings.HasSuffix(ce.Errors[0].File, "broken.rego") || ce.Errors[0].Line == 0 {
		t.Errorf("err = %#v", err)
	}
}

func TestSuppressions(t *testing.T) {
	today := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	es := []estimator.Estimate{estimateFor("a", 100), estimateFor("b", 100)}
	at := parser.Location{File: "main.tf", Line: 5}
	es[0].Suppressions = []parser.Suppression{
		{Rule: "GPU007", Reason: "profile next sprint", Expires: "2026-11-21", Source: at},
		{Rule: "GPU005", Reason: "tags come from the platform module", Expires: "2026-11-20", Source: at},
		{Rule: "GPU006", Reason: "", Source: at},
		{Rule: "GPU009", Reason: "x", Expires: "next year", Source: at},
	}
	MarkSuppressions(es, today)
	var statuses []string
	for _, s := range es[0].Suppressions {
		statuses = append(statuses, s.Status)
	}
	if strings.Join(statuses, ",") != "active,expired,no_reason,invalid_date" {
		t.Fatalf("statuses = %v", statuses)
	}
	e, err := New(context.Background(), Options{Now: func() time.Time { return today }})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := e.Evaluate(context.Background(), NewInput(es, estimator.Sum(es), nil, &config.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	ApplySuppressions(fs, es)
	var gpu010 int
	for _, f := range fs {
		switch {
		case f.Rule == "GPU007" && f.Address == "a":
			if !f.Suppressed || f.SuppressionReason != "profile next sprint" {
				t.Errorf("active suppression not applied: %+v", f)
			}
		case f.Rule == "GPU005" && f.Address == "a":
			if f.Suppressed {
				t.Errorf("an expired suppression waived a finding: %+v", f)
			}
		case f.Rule == "GPU007" && f.Address == "b":
			if f.Suppressed {
				t.Errorf("a suppression on another resource applied: %+v", f)
			}
		case f.Rule == "GPU010":
			gpu010++
			if f.File != "main.tf" || f.Line != 5 || f.Severity != result.Warn {
				t.Errorf("GPU010: %+v", f)
			}
		}
	}
	if gpu010 != 3 {
		t.Errorf("GPU010 findings = %d, want 3 (expired, no reason, bad date)", gpu010)
	}
}

// The input policies see must be the check JSON (less the skipped fields): the direct
// conversion is checked against encoding/json on realistic resources.
func TestInputMatchesJSON(t *testing.T) {
	es := benchResources(50)
	es[1].Pod = &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: 2, PerPodGPUs: 0.25}
	es[2].PriceSources = []estimator.PriceSource{{InstanceType: "x", Source: "s"}}
	es[3].Unresolved = []parser.Unresolved{{Attribute: "count", Reason: "r"}}
	rate := money.Rate(43915284)
	es[4].HourlyCost = &rate
	in := NewInput(es, estimator.Sum(es), map[string]any{"totals": map[string]any{"monthly_delta": 12.5}}, &config.Config{})
	got, err := in.value()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		t.Fatal(err)
	}
	for _, r := range generic["resources"].([]any) {
		delete(r.(map[string]any), "price_sources")
		if fit, ok := r.(map[string]any)["fit"].(map[string]any); ok {
			delete(fit, "breakdown")
		}
	}
	want, err := ast.InterfaceToValue(generic)
	if err != nil {
		t.Fatal(err)
	}
	if got.Compare(want) != 0 {
		t.Fatalf("policy input differs from the JSON:\n got %v\nwant %v", got, want)
	}
}

func TestDocsAreCurrent(t *testing.T) {
	doc, err := Docs()
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("..", "docs", "policies.md"), []byte(doc))
}

func TestRunTestsReportsFailures(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"team.rego":      "package gpuguard.team\n\ndeny contains \"x\" if { input.resources[_].monthly_cost > 100 }\n",
		"team_test.rego": "package gpuguard.team_test\n\nimport data.gpuguard.team\n\ntest_fires if { count(team.deny) == 1 with input as {\"resources\": [{\"monthly_cost\": 200}]} }\n\ntest_wrong if { count(team.deny) == 1 with input as {\"resources\": []} }\n\ntest_money if { gpuguard.dollars(1234.5) == \"$1,234.50\" }\n",
	}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := RunTests(context.Background(), []string{dir}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || !res[0].Pass || res[1].Pass || !strings.HasSuffix(res[1].File, "team_test.rego") || res[1].Line != 7 || !res[2].Pass {
		t.Fatalf("%+v", res)
	}
}

// The README's example policy must compile in the sandbox and find what it says it finds.
func TestReadmeExamplePolicy(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```rego\n")
	src, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README.md has no ```rego example")
	}
	e, err := New(context.Background(), Options{Dirs: []string{writePolicy(t, "owner.rego", src)}})
	if err != nil {
		t.Fatal(err)
	}
	es := []estimator.Estimate{estimateFor("aws_instance.big", 15441.57), estimateFor("aws_instance.small", 587.5), estimateFor("aws_instance.owned", 20000)}
	for i := range es {
		es[i].ID = "infra|" + es[i].Address
	}
	es[2].Tags = map[string]string{"owner": "ml-platform"}
	fs, err := e.Evaluate(context.Background(), NewInput(es, estimator.Sum(es), nil, &config.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		if f.Rule == "ACME001" {
			got = append(got, f.Address+": "+f.Message)
		}
	}
	want := "aws_instance.big: aws_instance.big costs $15,441.57 a month and has no owner tag"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("ACME001 findings = %q, want [%q]", got, want)
	}
}

// A policy that builds huge collections is stopped at the memory limit with a clear error,
// instead of growing until the runner kills the process.
func TestEvaluationHasAMemoryLimit(t *testing.T) {
	dir := writePolicy(t, "hungry.rego", `package main

deny contains msg if {
	xs := numbers.range(1, 1000000000)
	msg := sprintf("%d", [count(xs)])
}
`)
	e, err := New(context.Background(), Options{Dirs: []string{dir}, MemoryLimit: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = e.Evaluate(context.Background(), NewInput(nil, estimator.Totals{}, nil, &config.Config{}))
	if err == nil || !strings.Contains(err.Error(), "grew memory by more than 64 MiB") {
		t.Fatalf("err = %v", err)
	}
	// Stopped, not hung: the range alone would run for minutes. Under the race detector, on a
	// busy 2-core machine, stopping took 7.6 s once; a hang still runs far past 30 s.
	bound := 5 * time.Second
	if raceEnabled {
		bound = 30 * time.Second
	}
	if d := time.Since(start); d > bound {
		t.Fatalf("stopped only after %s", d)
	}
}

func TestRunTestsHasAMemoryLimit(t *testing.T) {
	defer func(l uint64, d time.Duration) { testsMemoryLimit, testsTimeout = l, d }(testsMemoryLimit, testsTimeout)
	testsMemoryLimit = 64 << 20
	if raceEnabled {
		// The race detector slows the range several times over: on a busy 2-core machine it
		// had not grown 64 MiB when the 10 s timeout ended the test (CI, 2026-11-27).
		testsTimeout = time.Minute
	}
	dir := writePolicy(t, "hungry_test.rego", "package main_test\n\ntest_hungry if { count(numbers.range(1, 1000000000)) > 0 }\n")
	_, err := RunTests(context.Background(), []string{dir}, false)
	if err == nil || !strings.Contains(err.Error(), "grew memory by more than 64 MiB") {
		t.Fatalf("err = %v", err)
	}
}

// A policy file may be a link inside its directory, not out of it: the directory is a pull
// request's, and Rego parse errors quote the offending line.
func TestPolicyLinksStayInTheirDirectory(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "policies")
	testutil.WriteFiles(t, dir, map[string]string{"real/team.rego": "package main\n\nwarn contains \"linked\" if true\n"})
	if err := os.WriteFile(filepath.Join(base, "environ"), []byte("GITHUB_TOKEN=ghp_SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "real", "team.rego"), filepath.Join(dir, "team.rego")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	e, err := New(context.Background(), Options{Dirs: []string{dir}})
	if err != nil {
		t.Fatalf("a link inside the directory: %v", err)
	}
	fs, err := e.Evaluate(context.Background(), NewInput(nil, estimator.Totals{}, nil, &config.Config{}))
	if err != nil || len(fs) != 1 || fs[0].Message != "linked" {
		t.Fatalf("findings %+v, %v", fs, err)
	}
	if err := os.Symlink(filepath.Join(base, "environ"), filepath.Join(dir, "evil.rego")); err != nil {
		t.Fatal(err)
	}
	_, err = New(context.Background(), Options{Dirs: []string{dir}})
	if err == nil || !strings.Contains(err.Error(), "outside the checked directories") || strings.Contains(err.Error(), "ghp_") {
		t.Fatalf("a link out of the policy directory: %v", err)
	}
}
