package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/github/githubtest"
)

const testToken = "ghs_s3cretTokenValue"

// diffJSON writes the increase fixture's diff as JSON, as the action's first step does.
func diffJSON(t *testing.T) string {
	t.Helper()
	r := runCLI(t, "", "diff", "--base", "testdata/diff/increase/base", "--head", "testdata/diff/increase/head", "--format", "json")
	if r.code != exitFindings {
		t.Fatalf("diff: exit %d: %s", r.code, r.stderr)
	}
	path := filepath.Join(t.TempDir(), "diff.json")
	if err := os.WriteFile(path, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func actionsEnv(t *testing.T, s *githubtest.Server, pr string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	event := filepath.Join(dir, "event.json")
	if err := os.WriteFile(event, []byte(`{"action":"synchronize","number":`+pr+`,"pull_request":{"number":`+pr+`}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"GITHUB_TOKEN": testToken, "GITHUB_REPOSITORY": "acme/infra", "GITHUB_EVENT_PATH": event,
		"GITHUB_API_URL": s.APIURL(), "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
	}
}

func noToken(t *testing.T, r cliResult) {
	t.Helper()
	if strings.Contains(r.stdout+r.stderr, testToken) || strings.Contains(r.stdout+r.stderr, "s3cret") {
		t.Errorf("the token was printed:\n%s\n%s", r.stdout, r.stderr)
	}
}

// The comment is found again across pages of other comments and edited in place: one pull
// request, one gpuguard comment, however often the workflow runs.
func TestCommentUpdatesInPlaceAcrossPages(t *testing.T) {
	repoRoot(t)
	input := diffJSON(t)
	s := githubtest.New()
	defer s.Close()
	s.PerPage = 2
	s.Seed(42, "LGTM", "please split this", "<!-- gpuguard:comment -->\nold report", "ship it", "another")
	vars := actionsEnv(t, s, "42")

	for run := 0; run < 2; run++ {
		r := runCLIEnv(t, vars, "", "comment", "github", "--input", input)
		noToken(t, r)
		if r.code != exitFindings {
			t.Fatalf("run %d: exit %d, want 2 (GPU001 denies the increase); stderr:\n%s", run, r.code, r.stderr)
		}
		want := []string{"updated its comment on acme/infra#42", "found its comment up to date on acme/infra#42"}[run]
		if !strings.Contains(r.stdout, want) {
			t.Errorf("run %d: stdout %q lacks %q", run, r.stdout, want)
		}
	}
	comments := s.Comments(42)
	if len(comments) != 5 {
		t.Fatalf("%d comments, want the 5 there were (no duplicate)", len(comments))
	}
	body := comments[2].Body
	if !strings.HasPrefix(body, "<!-- gpuguard:comment -->") || !strings.Contains(body, "GPU spend $34,799.16 → $83,600.18 a month") {
		t.Errorf("comment 3 was not updated with the report:\n%s", body)
	}
	for _, tok := range s.Tokens {
		if tok != "Bearer "+testToken {
			t.Fatalf("Authorization %q", tok)
		}
	}
	if _, err := os.Stat(vars["GITHUB_STEP_SUMMARY"]); !os.IsNotExist(err) {
		t.Errorf("a posted comment should not also go to the step summary")
	}
}

func TestCommentRunsTheDiffItself(t *testing.T) {
	repoRoot(t)
	s := githubtest.New()
	defer s.Close()
	vars := actionsEnv(t, s, "7")
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	delete(vars, "GITHUB_TOKEN")
	r := runCLIEnv(t, vars, "", "comment", "github", "--base", "testdata/diff/decrease/base", "--head", "testdata/diff/decrease/head",
		"--github-token-file", tokenFile, "--repo", "acme/other", "--pull-request", "9", "--behavior", "new")
	noToken(t, r)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if len(s.Comments(9)) != 1 || !strings.Contains(s.Comments(9)[0].Body, "📉 gpuguard: GPU spend $36,133.75 → $6,435.17") {
		t.Fatalf("comments: %+v", s.Comments(9))
	}
	if !strings.Contains(strings.Join(s.Requests, "\n"), "POST /repos/acme/other/issues/9/comments") {
		t.Errorf("requests: %v", s.Requests)
	}
	// new: a second run posts a second comment; delete-and-new leaves exactly one.
	runCLIEnv(t, vars, "", "comment", "github", "--base", "testdata/diff/decrease/base", "--head", "testdata/diff/decrease/head",
		"--github-token-file", tokenFile, "--repo", "acme/other", "--pull-request", "9", "--behavior", "new")
	if n := len(s.Comments(9)); n != 2 {
		t.Fatalf("behavior new: %d comments", n)
	}
	runCLIEnv(t, vars, "", "comment", "github", "--base", "testdata/diff/decrease/base", "--head", "testdata/diff/decrease/head",
		"--github-token-file", tokenFile, "--repo", "acme/other", "--pull-request", "9", "--behavior", "delete-and-new")
	if cs := s.Comments(9); len(cs) != 1 || cs[0].ID <= 1002 {
		t.Fatalf("behavior delete-and-new: %+v", cs)
	}
}

// A fork's pull request: the token may not comment. The report goes to the job summary, the run
// says why, and the exit status is the report's.
func TestCommentForbiddenFallsBackToStepSummary(t *testing.T) {
	repoRoot(t)
	input := diffJSON(t)
	for _, status := range []int{403, 404} {
		s := githubtest.New()
		s.Fail(githubtest.Failure{Status: status, Times: 10})
		vars := actionsEnv(t, s, "5")
		r := runCLIEnv(t, vars, "", "comment", "github", "--input", input)
		s.Close()
		noToken(t, r)
		if r.code != exitFindings {
			t.Errorf("HTTP %d: exit %d, want the report's 2; stderr:\n%s", status, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "cannot comment on acme/infra#5") || !strings.Contains(r.stderr, "forks") ||
			!strings.Contains(r.stderr, "in the job summary instead") {
			t.Errorf("HTTP %d: stderr does not say why:\n%s", status, r.stderr)
		}
		summary, err := os.ReadFile(vars["GITHUB_STEP_SUMMARY"])
		if err != nil || !strings.Contains(string(summary), "GPU spend $34,799.16 → $83,600.18 a month") {
			t.Errorf("HTTP %d: summary %q, %v", status, summary, err)
		}
		// A second run in the same job does not write the report twice.
		s2 := githubtest.New()
		s2.Fail(githubtest.Failure{Status: status, Times: 10})
		vars["GITHUB_API_URL"] = s2.APIURL()
		r = runCLIEnv(t, vars, "", "comment", "github", "--input", input, "--fail-on", "never")
		s2.Close()
		if r.code != exitOK || !strings.Contains(r.stderr, "The report is in the job summary.") {
			t.Errorf("HTTP %d again: exit %d, %s", status, r.code, r.stderr)
		}
		again, _ := os.ReadFile(vars["GITHUB_STEP_SUMMARY"])
		if strings.Count(string(again), "<!-- gpuguard:comment -->") != 1 {
			t.Errorf("HTTP %d: the summary holds the report %d times", status, strings.Count(string(again), "<!-- gpuguard:comment -->"))
		}
	}
}

// GitHub refusing the body as too long: the comment is rendered smaller and posted.
func TestCommentTooLongIsRetriedSmaller(t *testing.T) {
	repoRoot(t)
	r := runCLI(t, "", "diff", "--base", "testdata/diff/huge/base", "--head", "testdata/diff/huge/head", "--format", "json")
	input := filepath.Join(t.TempDir(), "huge.json")
	if err := os.WriteFile(input, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	s := githubtest.New()
	defer s.Close()
	s.Fail(githubtest.Failure{Method: "POST", Status: 422, Times: 2})
	r = runCLIEnv(t, actionsEnv(t, s, "3"), "", "comment", "github", "--input", input)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	cs := s.Comments(3)
	if len(cs) != 1 {
		t.Fatalf("%d comments", len(cs))
	}
	if n := len([]rune(cs[0].Body)); n > 32768 || !strings.Contains(cs[0].Body, "more changed resources") {
		t.Errorf("the third attempt should fit in 32,768 characters: %d", n)
	}
}

func TestCommentErrors(t *testing.T) {
	repoRoot(t)
	input := diffJSON(t)
	s := githubtest.New()
	defer s.Close()
	base := actionsEnv(t, s, "1")
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range base {
			m[a] = b
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	notPR := filepath.Join(t.TempDir(), "push.json")
	os.WriteFile(notPR, []byte(`{"ref":"refs/heads/main"}`), 0o644)
	junk := filepath.Join(t.TempDir(), "junk.json")
	os.WriteFile(junk, []byte(`{"version":"1"}`), 0o644)
	for _, tc := range []struct {
		name string
		vars map[string]string
		args []string
		msg  string
	}{
		{"no token", with("GITHUB_TOKEN", ""), []string{"--input", input}, "no GitHub token: set GITHUB_TOKEN or pass --github-token-file"},
		{"no repo", with("GITHUB_REPOSITORY", ""), []string{"--input", input}, "no repository"},
		{"bad repo", base, []string{"--input", input, "--repo", "acme"}, "repository must be OWNER/NAME"},
		{"not a pull request", with("GITHUB_EVENT_PATH", notPR), []string{"--input", input}, "is not about a pull request"},
		{"no event", with("GITHUB_EVENT_PATH", ""), []string{"--input", input}, "no pull request"},
		{"nothing to post", base, nil, "nothing to post"},
		{"both", base, []string{"--input", input, "--base", "x"}, "either --input or --base"},
		{"bad behavior", base, []string{"--input", input, "--behavior", "replace"}, "--behavior must be"},
		{"not a report", base, []string{"--input", junk}, "neither a check nor a diff document"},
		{"missing input", base, []string{"--input", "nope.json"}, "--input: open nope.json"},
		{"missing token file", base, []string{"--input", input, "--github-token-file", "/nonexistent/token"}, "--github-token-file"},
	} {
		r := runCLIEnv(t, tc.vars, "", append([]string{"comment", "github"}, tc.args...)...)
		if r.code != exitError || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", tc.name, r.code, r.stderr, tc.msg)
		}
		noToken(t, r)
	}
	// A 401 (a revoked token) is the tool failing: exit 1, and the token is still not shown.
	s.Fail(githubtest.Failure{Status: 401, Times: 10})
	r := runCLIEnv(t, base, "", "comment", "github", "--input", input)
	if r.code != exitError || !strings.Contains(r.stderr, "GitHub rejected the token (HTTP 401)") {
		t.Errorf("401: exit %d, %s", r.code, r.stderr)
	}
	noToken(t, r)
	if len(s.Comments(1)) != 0 {
		t.Errorf("comments were posted")
	}
}

// A check document (no base) is posted too, with its own totals.
func TestCommentFromCheckDocument(t *testing.T) {
	repoRoot(t)
	r := runCLI(t, "", "check", "testdata/diff/decrease/head", "--format", "json")
	input := filepath.Join(t.TempDir(), "check.json")
	os.WriteFile(input, []byte(r.stdout), 0o644)
	s := githubtest.New()
	defer s.Close()
	r = runCLIEnv(t, actionsEnv(t, s, "11"), "", "comment", "github", "--input", input, "--fail-on", "warn")
	if r.code != exitFindings {
		t.Fatalf("exit %d, want 2 (GPU003 warnings with --fail-on warn): %s", r.code, r.stderr)
	}
	cs := s.Comments(11)
	if len(cs) != 1 || !strings.HasPrefix(cs[0].Body, "<!-- gpuguard:comment -->") || !strings.Contains(cs[0].Body, "$6,435.17") {
		t.Fatalf("comments: %+v", cs)
	}
}

// In a pull-request workflow the comment links each resource to the line that declares it: at
// the pull request's head commit, and a removed resource at its base commit (both from the
// event). Paths are made relative to the repository's top ($GITHUB_WORKSPACE), wherever the
// command ran.
func TestCommentLinksResourcesToTheirLines(t *testing.T) {
	repoRoot(t)
	input := diffJSON(t)
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	const head, base = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	s := githubtest.New()
	defer s.Close()
	vars := actionsEnv(t, s, "5")
	event := filepath.Join(t.TempDir(), "event.json")
	os.WriteFile(event, []byte(`{"number":5,"pull_request":{"number":5,"head":{"sha":"`+head+`"},"base":{"sha":"`+base+`"}}}`), 0o644)
	vars["GITHUB_EVENT_PATH"], vars["GITHUB_WORKSPACE"] = event, cwd

	r := runCLIEnv(t, vars, "", "comment", "github", "--input", input)
	if r.code != exitFindings {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	body := s.Comments(5)[0].Body
	blob := "https://github.com/acme/infra/blob/"
	for _, want := range []string{
		"[`aws_instance.serve[2]`](" + blob + head + "/testdata/diff/increase/head/main.tf#L22)",
		"[`aws_instance.retired`](" + blob + base + "/testdata/diff/increase/base/main.tf#L26)",
		"[all resources](" + blob + head + "/testdata/diff/increase/head/.gpuguard.yaml#L2)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("comment lacks %s:\n%s", want, body)
		}
	}

	// Run from a subdirectory of the repository (the workspace one level up), on GitHub
	// Enterprise, with the commit given: links keep the path from the top.
	vars["GITHUB_WORKSPACE"], vars["GITHUB_SERVER_URL"] = filepath.Dir(cwd), "https://ghe.example.com"
	runCLIEnv(t, vars, "", "comment", "github", "--input", input, "--head-sha", "abcdef1")
	body = s.Comments(5)[0].Body
	want := "[`aws_instance.serve[2]`](https://ghe.example.com/acme/infra/blob/abcdef1/" + filepath.Base(cwd) + "/testdata/diff/increase/head/main.tf#L22)"
	if !strings.Contains(body, want) {
		t.Errorf("comment lacks %s:\n%s", want, body)
	}

	// Without a commit there is nothing to link to: names stay plain.
	os.WriteFile(event, []byte(`{"number":5,"pull_request":{"number":5}}`), 0o644)
	runCLIEnv(t, vars, "", "comment", "github", "--input", input)
	if body := s.Comments(5)[0].Body; strings.Contains(body, "/blob/") {
		t.Errorf("links without a commit:\n%s", body)
	}
	if r := runCLIEnv(t, vars, "", "comment", "github", "--input", input, "--head-sha", "main"); r.code != exitError || !strings.Contains(r.stderr, "--head-sha must be a commit") {
		t.Errorf("--head-sha main: exit %d, %s", r.code, r.stderr)
	}
}

// A check or diff step outside a pull request links at $GITHUB_SHA; an issue_comment workflow's
// $GITHUB_SHA is the default branch's, not the pull request's, so it links nothing.
func TestSummaryLinksAtTheWorkflowCommit(t *testing.T) {
	repoRoot(t)
	cwd, _ := os.Getwd()
	dir := t.TempDir()
	for _, c := range []struct {
		event string
		links bool
	}{{"push", true}, {"issue_comment", false}} {
		summary := filepath.Join(dir, c.event+".md")
		vars := map[string]string{"GITHUB_REPOSITORY": "acme/infra", "GITHUB_SHA": "abcdef0123", "GITHUB_EVENT_NAME": c.event,
			"GITHUB_WORKSPACE": cwd, "GITHUB_STEP_SUMMARY": summary}
		runCLIEnv(t, vars, "", "check", "testdata/diff/increase/head", "--format", "json")
		b, err := os.ReadFile(summary)
		if err != nil {
			t.Fatal(err)
		}
		link := "[`aws_instance.experiment`](https://github.com/acme/infra/blob/abcdef0123/testdata/diff/increase/head/main.tf#L31)"
		if got := strings.Contains(string(b), link); got != c.links {
			t.Errorf("%s: link %v, want %v:\n%s", c.event, got, c.links, b)
		}
	}
}
