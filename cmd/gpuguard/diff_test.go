package main

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gpuguard/gpuguard/internal/testutil"
)

// The pull-request comment for each kind of change, rendered from real trees.
func TestDiffMarkdownGolden(t *testing.T) {
	repoRoot(t)
	cases := []struct {
		name, base, head string
		code             int
		contains         []string
	}{
		{name: "increase", code: exitFindings, contains: []string{
			"📈 gpuguard: GPU spend $34,799.16 → $83,600.18 a month (+$48,801.02, +140.2%)",
			"❌ **1 guardrail failed**", "GPU001", "over the allowed increase of $5,000.00",
			"| `aws_eks_node_group.train` | 2–4× p4d.24xlarge (8× NVIDIA A100 40GB), on-demand → 2–4× p5.48xlarge (8× NVIDIA H100 80GB), on-demand | $32,058.16 (up to $64,116.31) → $80,358.40 (up to $160,716.80) | **+$48,300.24** |",
			"At the autoscalers' declared maximums: $66,857.32 → $163,958.58 a month (+$97,101.26).",
		}},
		{name: "decrease", contains: []string{
			"📉 gpuguard: GPU spend $36,133.75 → $6,435.17 a month (-$29,698.58, -82.2%)",
			"#### Memory fit", "🪫 oversized", "#### Cheaper fits", "g6.xlarge",
		}},
		{name: "unpriced", contains: []string{
			"⚠️ 2 GPU resources not priced", "**Unpriced, not in the totals:**",
			"var.trainer_machine_type has no value", "a5-highgpu-8g is not in the GCP price catalog",
			"1× nvidia-l4 comes built into g2-standard-4, g2-standard-8, g2-standard-12, g2-standard-16, g2-standard-32",
		}},
		{name: "no-gpus", contains: []string{"$0.00 → $0.00 a month ($0.00, no change)", "Neither side declares GPU resources."}},
		{name: "unchanged", base: "testdata/diff/increase/head", head: "testdata/diff/increase/head", contains: []string{
			"➖ gpuguard: GPU spend $83,600.18 → $83,600.18 a month ($0.00, 0.0%)", "No GPU resource changed (6 unchanged).",
		}},
		// Renames with moved blocks (a resource, a module) and count added to a resource (moved
		// by Terraform itself): compared with their base selves, not removed and added.
		{name: "moved", contains: []string{
			"+$7,659.63, +43.3%", "0 added · 0 removed · 1 changed · 3 unchanged · 4 moved",
			"on-demand — moved from `aws_eks_node_group.train` |",
			"| `module.serving.aws_instance.node[1]` | 1× g5.2xlarge (1× NVIDIA A10G), on-demand — moved from `module.inference.aws_instance.node[1]` | $884.76 |",
		}},
		{name: "huge", contains: []string{
			"+$315,932.32, +36.4%", "1,200 more changed resources", "**1,500 resources**",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base, head := tc.base, tc.head
			if base == "" {
				base, head = "testdata/diff/"+tc.name+"/base", "testdata/diff/"+tc.name+"/head"
			}
			r := runCLI(t, "", "diff", "--base", base, "--head", head, "--format", "markdown")
			if r.code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			if n := utf8.RuneCountInString(r.stdout); n > 65536 {
				t.Errorf("comment is %d characters, over GitHub's 65,536", n)
			}
			if !strings.HasPrefix(r.stdout, "<!-- gpuguard:comment -->\n") {
				t.Errorf("the comment does not start with the marker")
			}
			for _, s := range tc.contains {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("comment lacks %q", s)
				}
			}
			testutil.Golden(t, filepath.Join("testdata", "golden", "diff", tc.name+".md"), []byte(r.stdout))
		})
	}
}

// The other formats of the same diff: JSON (the contract), SARIF and workflow annotations.
func TestDiffFormatsGolden(t *testing.T) {
	repoRoot(t)
	for format, ext := range map[string]string{"json": ".json", "sarif": ".sarif", "github": ".github.txt", "table": ".txt"} {
		t.Run(format, func(t *testing.T) {
			r := runCLI(t, "", "diff", "--base", "testdata/diff/increase/base", "--head", "testdata/diff/increase/head", "--format", format)
			if r.code != exitFindings {
				t.Fatalf("exit code %d, want 2; stderr:\n%s", r.code, r.stderr)
			}
			testutil.Golden(t, filepath.Join("testdata", "golden", "diff", "increase"+ext), []byte(r.stdout))
			if format == "table" {
				// The README shows the same run, up to its findings.
				findings := strings.Index(r.stdout, "Findings:\n")
				if findings < 0 {
					t.Fatalf("the diff has no findings:\n%s", r.stdout)
				}
				testutil.Excerpt(t, "README.md", "$ gpuguard diff --base testdata/diff/increase/base --head testdata/diff/increase/head --format table\n", "```", r.stdout[:findings]+"...\n")
			}
		})
	}
	r := runCLI(t, "", "diff", "--base", "testdata/diff/increase/base", "--head", "testdata/diff/increase/head", "--format", "json")
	var doc struct {
		Base, Head struct {
			MonthlyCost float64 `json:"monthly_cost"`
			Resources   int
			Unpriced    int
		}
		Changes []struct {
			Address, Change string
		}
		Findings []struct{ Rule, Severity string }
		Totals   struct {
			Before  float64  `json:"monthly_cost_before"`
			After   float64  `json:"monthly_cost_after"`
			Delta   float64  `json:"monthly_delta"`
			Percent *float64 `json:"percent_change"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, c := range doc.Changes {
		kinds[c.Address] = c.Change
	}
	want := map[string]string{
		"aws_eks_node_group.train": "changed", "aws_instance.serve[0]": "unchanged", "aws_instance.serve[1]": "unchanged",
		"aws_instance.serve[2]": "added", "aws_instance.retired": "removed", "aws_instance.notebook": "unchanged",
		"aws_instance.experiment": "added",
	}
	for a, k := range want {
		if kinds[a] != k {
			t.Errorf("%s: change %q, want %q", a, kinds[a], k)
		}
	}
	if len(kinds) != len(want) {
		t.Errorf("changes %v, want %v", kinds, want)
	}
	if doc.Changes[0].Address != "aws_eks_node_group.train" {
		t.Errorf("the largest change is not first: %s", doc.Changes[0].Address)
	}
	if doc.Totals.Delta != 48801.02 || doc.Totals.Before != 34799.16 || doc.Totals.After != 83600.18 ||
		doc.Totals.Percent == nil || *doc.Totals.Percent != 140.24 {
		t.Errorf("totals %+v", doc.Totals)
	}
	if doc.Head.Unpriced != 1 || doc.Base.Resources != 5 || doc.Head.Resources != 6 {
		t.Errorf("sides %+v %+v", doc.Base, doc.Head)
	}
	deny := 0
	for _, f := range doc.Findings {
		if f.Severity == "deny" {
			deny++
			if f.Rule != "GPU001" {
				t.Errorf("unexpected deny %s", f.Rule)
			}
		}
	}
	if deny != 1 {
		t.Errorf("%d deny findings, want GPU001 once", deny)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(to, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// baseRepo makes a git repository whose main branch holds fixture (a testdata directory) under
// infra/, with extra files beside it, committed as the base. It skips the test without git.
func baseRepo(t *testing.T, fixture string, extra map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	repo := t.TempDir()
	testutil.Git(t, repo, "init", "-q", "-b", "main")
	copyTree(t, filepath.Join(root, "testdata", fixture), filepath.Join(repo, "infra"))
	testutil.WriteFiles(t, repo, extra)
	testutil.Git(t, repo, "add", ".")
	testutil.Git(t, repo, "commit", "-q", "-m", "base")
	return repo
}

// A pull request's base given as a git ref: the base is extracted from the repository, the head
// is the working tree, and the files in the report are relative to the repository either way.
func TestDiffGitRef(t *testing.T) {
	repo := baseRepo(t, "diff/increase/base", nil)
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	testutil.Git(t, repo, "checkout", "-q", "-b", "feature")
	copyTree(t, filepath.Join(root, "testdata/diff/increase/head"), filepath.Join(repo, "infra"))
	t.Chdir(repo)

	r := runCLI(t, "", "diff", "--base", "main", "--format", "json", "infra")
	if r.code != exitFindings {
		t.Fatalf("exit code %d, want 2; stderr:\n%s", r.code, r.stderr)
	}
	var doc struct {
		Base    struct{ Ref string }
		Head    struct{ Ref string }
		Changes []struct {
			Address, Change, Root string
			After                 *struct{ Source struct{ File string } }
		}
		Totals struct {
			Delta float64 `json:"monthly_delta"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Totals.Delta != 48801.02 || doc.Base.Ref != "main" {
		t.Errorf("delta %v, base ref %q", doc.Totals.Delta, doc.Base.Ref)
	}
	for _, c := range doc.Changes {
		if c.Root != "infra" {
			t.Errorf("%s: root %q, want infra", c.Address, c.Root)
		}
		if c.After != nil && c.After.Source.File != "infra/main.tf" {
			t.Errorf("%s: file %q, want infra/main.tf", c.Address, c.After.Source.File)
		}
	}
	// The head as a ref too: committed, then compared commit to commit.
	testutil.Git(t, repo, "add", ".")
	testutil.Git(t, repo, "commit", "-q", "-m", "head")
	if err := os.RemoveAll(filepath.Join(repo, "infra")); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "", "diff", "--base", "main", "--head", "feature", "--format", "json", "infra")
	if r.code != exitFindings || !strings.Contains(r.stdout, `"monthly_delta": 48801.02`) {
		t.Fatalf("ref to ref: exit %d\n%s\n%s", r.code, r.stderr, r.stdout)
	}

	r = runCLI(t, "", "diff", "--base", "no-such-branch", "infra")
	if r.code != exitError || !strings.Contains(r.stderr, `"no-such-branch" is neither a directory nor a commit`) {
		t.Fatalf("bad ref: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestDiffFlags(t *testing.T) {
	repoRoot(t)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"diff"}, "--base is required"},
		{[]string{"diff", "--base", "testdata/diff/increase/base", "-"}, "diff reads trees, not standard input"},
		{[]string{"diff", "--base", "testdata/diff/increase/base", "--format", "xml"}, "xml"},
	} {
		r := runCLI(t, "", tc.args...)
		if r.code != exitError || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tc.args, r.code, r.stderr, tc.msg)
		}
	}
}

// In GitHub Actions, check and diff append their report to the job summary and set the step
// outputs the action declares.
func TestGitHubStepSummaryAndOutputs(t *testing.T) {
	repoRoot(t)
	dir := t.TempDir()
	vars := map[string]string{
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
	}
	r := runCLIEnv(t, vars, "", "diff", "--base", "testdata/diff/increase/base", "--head", "testdata/diff/increase/head", "--format", "json")
	if r.code != exitFindings {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	r = runCLIEnv(t, vars, "", "check", "testdata/diff/decrease/head", "--format", "json", "--config", "testdata/diff/decrease/head/nonexistent.yaml")
	if r.code != exitError {
		t.Fatalf("a missing --config should fail: exit %d", r.code)
	}
	r = runCLIEnv(t, vars, "", "check", "testdata/diff/no-gpus/head", "--format", "json")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	summary, err := os.ReadFile(vars["GITHUB_STEP_SUMMARY"])
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(summary), "<!-- gpuguard:comment -->"); n != 2 {
		t.Errorf("summary holds %d reports, want 2 (diff and the successful check)", n)
	}
	if !strings.Contains(string(summary), "GPU spend $34,799.16 → $83,600.18 a month") {
		t.Errorf("summary lacks the diff headline:\n%s", summary)
	}
	out, err := os.ReadFile(vars["GITHUB_OUTPUT"])
	if err != nil {
		t.Fatal(err)
	}
	want := "monthly-cost=83600.18\nmax-monthly-cost=163958.58\nmonthly-delta=48801.02\nfailed=true\n" +
		"monthly-cost=0.00\nmax-monthly-cost=0.00\nmonthly-delta=\nfailed=false\n"
	if string(out) != want {
		t.Errorf("GITHUB_OUTPUT:\n%s\nwant:\n%s", out, want)
	}
}

// One run gives annotations for the log and the JSON for 'comment github --input'.
func TestJSONOutputBesideAnotherFormat(t *testing.T) {
	repoRoot(t)
	path := filepath.Join(t.TempDir(), "report.json")
	r := runCLI(t, "", "diff", "--base", "testdata/diff/increase/base", "--head", "testdata/diff/increase/head", "--format", "github", "--json-output", path)
	if r.code != exitFindings || !strings.HasPrefix(r.stdout, "::error file=testdata/diff/increase/head/.gpuguard.yaml,line=2,title=gpuguard GPU001") {
		t.Fatalf("exit %d, stdout:\n%s", r.code, r.stdout)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("testdata/golden/diff/increase.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(golden) {
		t.Errorf("--json-output differs from --format json")
	}
	r = runCLI(t, "", "check", "testdata/diff/no-gpus/head", "--format", "table", "--json-output", "/nonexistent/dir/x.json")
	if r.code != exitError || !strings.Contains(r.stderr, "--json-output") {
		t.Errorf("unwritable --json-output: exit %d, %s", r.code, r.stderr)
	}
}

// docs/github-action.md shows the comment of testdata/diff/increase: it must be the real one.
func TestDocsShowTheRealComment(t *testing.T) {
	repoRoot(t)
	r := runCLI(t, "", "diff", "--base", "testdata/diff/increase/base", "--head", "testdata/diff/increase/head", "--format", "markdown")
	testutil.Excerpt(t, "docs/github-action.md", "<!-- example-comment:start -->\n", "<!-- example-comment:end -->", r.stdout)
}

// A module gpuguard does not follow may hide GPUs: the comment, the text and the annotations say
// so, instead of only "Neither side declares GPU resources".
func TestDiffShowsInputWarnings(t *testing.T) {
	base, head := t.TempDir(), t.TempDir()
	src := "provider \"aws\" {\n  region = \"us-east-1\"\n}\nmodule \"eks\" {\n  source = \"acme-platform/gpu-cluster/aws\"\n  node_groups = { gpu = { instance_types = [\"p4d.24xlarge\"] } }\n}\n"
	if err := os.WriteFile(filepath.Join(head, "main.tf"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := `main.tf:4: module "eks": source "acme-platform/gpu-cluster/aws" is not followed`
	r := runCLI(t, "", "diff", "--base", base, "--head", head, "--format", "markdown")
	if r.code != exitOK || !strings.Contains(r.stdout, "**1 input warning** — inputs read only in part, or that would not apply or run as written:") || !strings.Contains(r.stdout, want) {
		t.Fatalf("exit %d, comment:\n%s", r.code, r.stdout)
	}
	r = runCLI(t, "", "diff", "--base", base, "--head", head, "--format", "table")
	if !strings.Contains(r.stdout, "Warnings:\n") || !strings.Contains(r.stdout, want) {
		t.Fatalf("text diff:\n%s", r.stdout)
	}
	r = runCLI(t, "", "diff", "--base", base, "--head", head, "--format", "github")
	if !strings.Contains(r.stdout, "::warning file=") || !strings.Contains(r.stdout, "line=4,title=gpuguard input read in part::module") {
		t.Fatalf("annotations:\n%s", r.stdout)
	}
	r = runCLI(t, "", "check", head, "--format", "markdown")
	if !strings.Contains(r.stdout, "**Warnings:**\n") || !strings.Contains(r.stdout, `source "acme-platform/gpu-cluster/aws" is not followed`) {
		t.Fatalf("check markdown:\n%s", r.stdout)
	}
}

// A git ref has no .terraform (git archive leaves it out, as .gitignore usually does): the base
// borrows the working tree's downloaded modules, so a registry module both sides call is
// unchanged, not "added".
func TestDiffGitRefFollowsTheWorkingTreesDownloadedModules(t *testing.T) {
	repo := baseRepo(t, "terraform/downloaded_modules", map[string]string{".gitignore": ".terraform/\n"})
	t.Chdir(repo)

	r := runCLI(t, "", "diff", "--base", "main", "--format", "json", "infra")
	var doc struct {
		Changes []struct{ Address, Change string }
		Totals  struct {
			Before float64 `json:"monthly_cost_before"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stderr)
	}
	if len(doc.Changes) != 1 || doc.Changes[0].Change != "unchanged" || doc.Totals.Before != 1762.51 {
		t.Fatalf("changes %+v, base total %v; stderr:\n%s", doc.Changes, doc.Totals.Before, r.stderr)
	}
}

// A pull request that bumps a registry module's version: the base, which borrows the working
// tree's downloads, does not read the new version's code for the old constraint. It falls back to
// gpuguard's stand-in and says why; the head reads the download.
func TestDiffGitRefModuleVersionBump(t *testing.T) {
	repo := baseRepo(t, "terraform/downloaded_modules", map[string]string{".gitignore": ".terraform/\n"})
	main := filepath.Join(repo, "infra", "main.tf")
	src, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `version = "~> 20.0"`) {
		t.Fatal("the fixture no longer asks for ~> 20.0")
	}
	// The base asked for v19; the pull request moves to v20, which terraform init downloaded.
	testutil.WriteFiles(t, repo, map[string]string{"infra/main.tf": strings.Replace(string(src), `version = "~> 20.0"`, `version = "~> 19.0"`, 1)})
	testutil.Git(t, repo, "commit", "-q", "-am", "v19")
	testutil.WriteFiles(t, repo, map[string]string{"infra/main.tf": string(src)})
	t.Chdir(repo)

	r := runCLI(t, "", "diff", "--base", "main", "--format", "json", "infra")
	var doc struct {
		Changes []struct {
			Address, Change string
			Before, After   struct{ Notes []string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stderr)
	}
	if len(doc.Changes) != 1 {
		t.Fatalf("changes %+v; stderr:\n%s", doc.Changes, r.stderr)
	}
	c := doc.Changes[0]
	before, after := strings.Join(c.Before.Notes, "|"), strings.Join(c.After.Notes, "|")
	if !strings.Contains(before, `stand-in`) || !strings.Contains(before, `holds version 20.8.5, which the call's version constraint "~> 19.0" does not admit`) {
		t.Errorf("base notes %q: the base should not read v20's download", before)
	}
	if !strings.Contains(after, "as terraform init downloaded it") {
		t.Errorf("head notes %q: the head should read the download", after)
	}
}

// A Terragrunt unit whose inputs change between the base ref and the working tree is a change
// of that unit's resource only, named by its unit (another unit deploys the same module).
func TestDiffGitRefTerragruntInputs(t *testing.T) {
	repo := baseRepo(t, "terraform/terragrunt", nil)
	unit := filepath.Join(repo, "infra", "live", "prod", "training", "terragrunt.hcl")
	b, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(unit, []byte(strings.Replace(string(b), "node_count    = 2", "node_count    = 4", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo)
	r := runCLI(t, "", "diff", "--base", "main", "--format", "json", "infra")
	var doc struct {
		Changes []struct{ Address, Change, Root string }
		Totals  struct {
			Before float64 `json:"monthly_cost_before"`
			After  float64 `json:"monthly_cost_after"`
			Delta  float64 `json:"monthly_delta"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("exit %d: %v\n%s", r.code, err, r.stderr)
	}
	var changed []string
	for _, c := range doc.Changes {
		if c.Change != "unchanged" {
			changed = append(changed, c.Root+"|"+c.Address+"|"+c.Change)
		}
	}
	// Two more p4d.24xlarge nodes on demand: 2 × $16,029.08 less the cent the totals' rounding
	// takes: the delta is the difference of the totals as shown.
	if len(changed) != 1 || changed[0] != "infra/live/prod/training|aws_eks_node_group.gpu|changed" || doc.Totals.Delta != 32058.15 {
		t.Fatalf("changes %v, delta %v\n%s", changed, doc.Totals.Delta, r.stderr)
	}
	if got := math.Round((doc.Totals.After-doc.Totals.Before)*100) / 100; got != doc.Totals.Delta {
		t.Errorf("totals %v → %v differ by %v, but the delta says %v", doc.Totals.Before, doc.Totals.After, got, doc.Totals.Delta)
	}
}

// The JSON diff says where a moved resource was (moved_from, the base's address), also when the
// base is a git ref and both sides' roots are made relative to the repository.
func TestDiffGitRefFollowsMoves(t *testing.T) {
	repo := baseRepo(t, "diff/moved/base", nil)
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	testutil.Git(t, repo, "checkout", "-q", "-b", "feature")
	if err := os.RemoveAll(filepath.Join(repo, "infra")); err != nil {
		t.Fatal(err)
	}
	copyTree(t, filepath.Join(root, "testdata/diff/moved/head"), filepath.Join(repo, "infra"))
	t.Chdir(repo)
	r := runCLI(t, "", "diff", "--base", "main", "--format", "json", "infra")
	if r.code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", r.code, r.stderr)
	}
	var doc struct {
		Changes []struct {
			Address, Change string
			MovedFrom       string `json:"moved_from"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range doc.Changes {
		got[c.Address] = c.Change + " " + c.MovedFrom
	}
	want := map[string]string{
		"aws_eks_node_group.train[0]":         "changed aws_eks_node_group.train",
		"aws_instance.research_notebook":      "unchanged aws_instance.notebook",
		"module.serving.aws_instance.node[0]": "unchanged module.inference.aws_instance.node[0]",
		"module.serving.aws_instance.node[1]": "unchanged module.inference.aws_instance.node[1]",
	}
	if !maps.Equal(got, want) {
		t.Errorf("changes %v\nwant %v", got, want)
	}
	// The head as a ref too: its moves are read from the extracted tree.
	testutil.Git(t, repo, "add", ".")
	testutil.Git(t, repo, "commit", "-q", "-m", "head")
	r = runCLI(t, "", "diff", "--base", "main", "--head", "feature", "--format", "json", "infra")
	if r.code != 0 || !strings.Contains(r.stdout, `"moved_from": "module.inference.aws_instance.node[1]"`) || strings.Contains(r.stdout, `"removed"`) {
		t.Errorf("ref to ref: exit %d\n%s\n%s", r.code, r.stderr, r.stdout)
	}
}

// A --var-file of the repository is read from each side's tree: a pull request that changes
// only the variables file shows the cost of the change (both sides read the working tree's copy
// before, and the diff said nothing changed). A file the base lacks leaves that side without
// it, with a warning; a file outside the repository is read as given on both sides.
func TestDiffReadsEachSidesVarFile(t *testing.T) {
	const stack = `variable "gpu_type" { type = string }
provider "aws" { region = "us-east-1" }
resource "aws_instance" "train" {
  ami           = "ami-123"
  instance_type = var.gpu_type
}
`
	repo := baseRepo(t, "diff/no-gpus", map[string]string{"stack/main.tf": stack, "envs/prod.tfvars": `gpu_type = "g5.xlarge"` + "\n",
		"ci/gpuguard.yaml": "hours_per_month: 100\n"})
	testutil.WriteFiles(t, repo, map[string]string{"envs/prod.tfvars": `gpu_type = "p4d.24xlarge"` + "\n", "envs/new.tfvars": `gpu_type = "g6.xlarge"` + "\n",
		"ci/gpuguard.yaml": "hours_per_month: 200\n"})
	outside := filepath.Join(t.TempDir(), "mine.tfvars")
	testutil.WriteFiles(t, filepath.Dir(outside), map[string]string{"mine.tfvars": `gpu_type = "g6e.xlarge"` + "\n"})
	t.Chdir(repo)

	type change struct {
		Change string
		Before *struct {
			InstanceType string `json:"instance_type"`
		}
		After *struct {
			InstanceType string `json:"instance_type"`
		}
	}
	run := func(varFile string) (change, []string) {
		t.Helper()
		r := runCLI(t, "", "diff", "--base", "main", "--var-file", varFile, "--format", "json", "--fail-on", "never", "stack")
		if r.code != exitOK {
			t.Fatalf("--var-file %s: exit %d\n%s", varFile, r.code, r.stderr)
		}
		var doc struct {
			Changes  []change
			Warnings []struct{ Message string }
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Changes) != 1 {
			t.Fatalf("--var-file %s: changes %+v", varFile, doc.Changes)
		}
		var warns []string
		for _, w := range doc.Warnings {
			warns = append(warns, w.Message)
		}
		return doc.Changes[0], warns
	}
	typ := func(s *struct {
		InstanceType string `json:"instance_type"`
	}) string {
		if s == nil {
			return "-"
		}
		return s.InstanceType
	}

	c, warns := run("envs/prod.tfvars")
	if c.Change != "changed" || typ(c.Before) != "g5.xlarge" || typ(c.After) != "p4d.24xlarge" || len(warns) != 0 {
		t.Errorf("changed tfvars: %s %s → %s, warnings %q", c.Change, typ(c.Before), typ(c.After), warns)
	}
	c, warns = run("envs/new.tfvars")
	if c.Change != "changed" || typ(c.Before) != "" || typ(c.After) != "g6.xlarge" ||
		len(warns) != 1 || warns[0] != "in the base: --var-file envs/new.tfvars does not exist at main: the variables it sets take their other values there" {
		t.Errorf("added tfvars: %s %q → %s, warnings %q", c.Change, typ(c.Before), typ(c.After), warns)
	}
	c, warns = run(outside)
	if c.Change != "unchanged" || typ(c.After) != "g6e.xlarge" || len(warns) != 0 {
		t.Errorf("tfvars outside the repository: %s → %s, warnings %q", c.Change, typ(c.After), warns)
	}

	// --config names a file of the repository too: each side reads its own version (the base's
	// 100 hours a month, the head's 200), as each does without --config.
	r := runCLI(t, "", "diff", "--base", "main", "--config", "ci/gpuguard.yaml", "--var-file", "envs/prod.tfvars", "--format", "json", "--fail-on", "never", "stack")
	var doc struct {
		Changes []struct {
			Before, After struct {
				Hours float64 `json:"hours_per_month"`
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != exitOK {
		t.Fatalf("--config: exit %d, %v\n%s", r.code, err, r.stderr)
	}
	if len(doc.Changes) != 1 || doc.Changes[0].Before.Hours != 100 || doc.Changes[0].After.Hours != 200 {
		t.Errorf("--config: each side's hours, want 100 → 200: %+v", doc.Changes)
	}
}

// Trees compared from their own directories get ids relative to each tree, and so do the ids
// that name other resources: the node groups a Deployment's pods run on, and the groups they
// share. The head's savings count the groups and the pods on them once, as check counts them,
// and GPU011 judges the pods against the groups' maximums together.
func TestDiffRenamesNodeGroupIDs(t *testing.T) {
	pool := func(name string) string {
		return `---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: ` + name + `, namespace: ml}
spec:
  clusterName: eks
  replicas: 1
  template:
    spec:
      bootstrap: {dataSecretName: ""}
      infrastructureRef: {kind: AWSManagedMachinePool, name: ` + name + `}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSManagedMachinePool
metadata: {name: ` + name + `, namespace: ml}
spec: {instanceType: g6.2xlarge, amiType: AL2023_x86_64_NVIDIA, scaling: {minSize: 1, maxSize: 2}, labels: {workload: inference}}
`
	}
	manifest := func(replicas string) string {
		return "apiVersion: controlplane.cluster.x-k8s.io/v1beta2\nkind: AWSManagedControlPlane\nmetadata: {name: eks, namespace: ml}\nspec: {region: us-east-1}\n" +
			pool("a") + pool("b") + `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: search, namespace: ml}
spec:
  replicas: ` + replicas + `
  template:
    spec:
      nodeSelector: {workload: inference}
      containers: [{name: s, resources: {limits: {nvidia.com/gpu: 1}}}]
`
	}
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{"base/m.yaml": manifest("1"), "head/m.yaml": manifest("6")})
	t.Chdir(dir)
	check := runCLI(t, "", "check", "head", "--format", "table", "--fail-on", "never")
	want := regexp.MustCompile(`up to (\$[0-9,.]+\*?)/month in all`).FindStringSubmatch(check.stdout)
	if want == nil {
		t.Fatalf("check names no savings:\n%s", check.stdout)
	}
	md := runCLI(t, "", "diff", "--base", "base", "--head", "head", "--format", "markdown", "--fail-on", "never")
	if !strings.Contains(md.stdout, "#### Cheaper fits — up to "+want[1]+" a month") {
		t.Errorf("diff's savings are not check's %s:\n%s", want[1], md.stdout)
	}
	r := runCLI(t, "", "diff", "--base", "base", "--head", "head", "--format", "json", "--fail-on", "never")
	var doc struct {
		Findings []struct{ Rule, Address string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	// 6 pods need 6 nodes; the two groups have 4 at most, judged once, on the first.
	if !slices.ContainsFunc(doc.Findings, func(f struct{ Rule, Address string }) bool {
		return f.Rule == "GPU011" && f.Address == "MachinePool/ml/a"
	}) {
		t.Errorf("no GPU011 on MachinePool/ml/a: %+v", doc.Findings)
	}
}

// A path only one side has is one the pull request adds or deletes: its resources are all added
// (or all removed), and the side without it is read as having none there, not as an input
// error. A path neither side has is still an error on both.
func TestDiffPathOnlyOneSideHas(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	dir := t.TempDir()
	copyTree(t, filepath.Join(root, "testdata/diff/increase/head"), filepath.Join(dir, "with", "gpu"))
	copyTree(t, filepath.Join(root, "testdata/diff/no-gpus"), filepath.Join(dir, "without", "other"))
	t.Chdir(dir)
	run := func(base, head, path string) (code int, changes map[string]int, errs []string) {
		t.Helper()
		r := runCLI(t, "", "diff", "--base", base, "--head", head, "--format", "json", "--fail-on", "never", path)
		var doc struct {
			Changes []struct{ Change string }
			Errors  []struct{ Message string }
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("%s → %s: %v\n%s", base, head, err, r.stderr)
		}
		changes = map[string]int{}
		for _, c := range doc.Changes {
			changes[c.Change]++
		}
		for _, e := range doc.Errors {
			errs = append(errs, e.Message)
		}
		return r.code, changes, errs
	}
	if code, changes, errs := run("without", "with", "gpu"); code != exitOK || len(errs) != 0 || changes["added"] != 6 || len(changes) != 1 {
		t.Errorf("a path the change adds: exit %d, changes %v, errors %q", code, changes, errs)
	}
	if code, changes, errs := run("with", "without", "gpu"); code != exitOK || len(errs) != 0 || changes["removed"] != 6 || len(changes) != 1 {
		t.Errorf("a path the change deletes: exit %d, changes %v, errors %q", code, changes, errs)
	}
	if code, _, errs := run("with", "without", "nowhere"); code != exitError || len(errs) != 2 {
		t.Errorf("a path neither side has: exit %d, errors %q", code, errs)
	}
}
