package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	ghcomment "github.com/gpuguard/gpuguard/internal/github"
	"github.com/gpuguard/gpuguard/internal/report"
	"github.com/gpuguard/gpuguard/internal/result"
)

type commentOptions struct {
	diffOptions
	input       string
	repo        string
	pullRequest int
	apiURL      string
	tokenFile   string
	behavior    string
	headSHA     string
}

func newCommentCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "comment",
		Short: "Post the report on a pull request",
	}
	cmd.AddCommand(newCommentGitHubCommand(e))
	return cmd
}

func newCommentGitHubCommand(e *env) *cobra.Command {
	var o commentOptions
	cmd := &cobra.Command{
		Use:   "github (--input FILE | --base B [--head H] [PATH...])",
		Short: "Post or update gpuguard's comment on a GitHub pull request",
		Long: `comment github posts the Markdown report on a pull request, or edits gpuguard's earlier
comment there (found by a hidden marker) so that a pull request carries one comment however
often it is pushed. The report comes from --input (a JSON document written by 'check' or 'diff'
with --format json) or from running the diff itself with --base.

The token is read from $GITHUB_TOKEN or --github-token-file and never printed. When the token
may not comment (a pull request from a fork: HTTP 403 or 404), the report goes to
$GITHUB_STEP_SUMMARY instead and the exit status is the report's, as if the comment had been
posted. Exit status: 0, or 2 when findings reach --fail-on; 1 when the report could not be made
or GitHub failed for another reason.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.input != "" && len(args) > 0 {
				return fmt.Errorf("paths are read with --base; --input takes a finished report")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runCommentGitHub(e, &o, args) },
	}
	f := cmd.Flags()
	f.StringVar(&o.input, "input", "", "a check or diff JSON document to post ('-' reads standard input)")
	f.StringVar(&o.base, "base", "", "run the diff against this base (a directory or git ref) instead of reading --input")
	f.StringVar(&o.head, "head", ".", "head tree for --base: a directory or a git ref")
	o.bindInputs(cmd) // for --base; --fail-on also judges an --input report
	f.StringVar(&o.repo, "repo", "", "OWNER/NAME (default $GITHUB_REPOSITORY)")
	f.IntVar(&o.pullRequest, "pull-request", 0, "pull request number (default: from the event at $GITHUB_EVENT_PATH)")
	f.StringVar(&o.apiURL, "github-api-url", "", "REST API root (default $GITHUB_API_URL, else https://api.github.com)")
	f.StringVar(&o.tokenFile, "github-token-file", "", "read the token from this file instead of $GITHUB_TOKEN")
	f.StringVar(&o.behavior, "behavior", ghcomment.BehaviorUpdate, "update (edit the earlier comment), new (always post a new one) or delete-and-new")
	f.StringVar(&o.headSHA, "head-sha", "", "commit the comment links resources at (default: the pull request's head from $GITHUB_EVENT_PATH, else $GITHUB_SHA)")
	return cmd
}

// commentTarget is where the comment goes, resolved from flags and the Actions environment.
type commentTarget struct {
	repo   string
	pr     int
	apiURL string
	token  string
}

func resolveTarget(e *env, o *commentOptions) (commentTarget, error) {
	t := commentTarget{repo: o.repo, pr: o.pullRequest, apiURL: o.apiURL}
	if t.repo == "" {
		t.repo = e.getenv("GITHUB_REPOSITORY")
	}
	if t.repo == "" {
		return t, fmt.Errorf("no repository: pass --repo OWNER/NAME or set GITHUB_REPOSITORY")
	}
	if t.pr == 0 {
		path := e.getenv("GITHUB_EVENT_PATH")
		if path == "" {
			return t, fmt.Errorf("no pull request: pass --pull-request N or run in a pull_request workflow (GITHUB_EVENT_PATH)")
		}
		n, err := ghcomment.PullRequestFromEvent(path)
		if err != nil {
			return t, err
		}
		t.pr = n
	}
	if t.pr < 0 {
		return t, fmt.Errorf("--pull-request must be a positive number, got %d", t.pr)
	}
	if t.apiURL == "" {
		t.apiURL = e.getenv("GITHUB_API_URL")
	}
	if o.tokenFile != "" {
		b, err := os.ReadFile(o.tokenFile)
		if err != nil {
			// The error names the file, never its content.
			return t, fmt.Errorf("--github-token-file: %w", err)
		}
		t.token = strings.TrimSpace(string(b))
		if t.token == "" {
			return t, fmt.Errorf("--github-token-file %s is empty", o.tokenFile)
		}
	} else {
		t.token = strings.TrimSpace(e.getenv("GITHUB_TOKEN"))
	}
	if t.token == "" {
		return t, fmt.Errorf("no GitHub token: set GITHUB_TOKEN or pass --github-token-file")
	}
	return t, nil
}

// commentDocument is the report to post, with what decides the exit status.
type commentDocument struct {
	check *result.Check
	diff  *result.Diff
	links *report.SourceLinks // where resources link to; nil: no links
}

func (d commentDocument) render(max int) string {
	if d.diff != nil {
		return report.DiffComment(d.diff, max, d.links)
	}
	return report.CheckComment(d.check, max, d.links)
}

func loadCommentDocument(e *env, o *commentOptions, paths []string) (commentDocument, error) {
	switch {
	case o.input != "" && o.base != "":
		return commentDocument{}, fmt.Errorf("pass either --input or --base, not both")
	case o.input == "" && o.base == "":
		return commentDocument{}, fmt.Errorf("nothing to post: pass --input FILE (from check or diff --format json) or --base B")
	case o.base != "":
		run, err := computeDiff(e, &o.diffOptions, paths)
		if err != nil {
			return commentDocument{}, err
		}
		return commentDocument{diff: run.doc}, nil
	}
	var data []byte
	var err error
	if o.input == "-" {
		data, err = io.ReadAll(e.stdin)
	} else {
		data, err = os.ReadFile(o.input)
	}
	if err != nil {
		return commentDocument{}, fmt.Errorf("--input: %w", err)
	}
	doc, err := result.ReadDocument(data)
	if err != nil {
		return commentDocument{}, fmt.Errorf("--input %s: %w", o.input, err)
	}
	return commentDocument{check: doc.Check, diff: doc.Diff}, nil
}

// commentSizes are the limits tried in turn when GitHub refuses a body as too long: GitHub's
// documented 65,536 characters first, then smaller in case it counts differently (bytes).
var commentSizes = []int{report.MaxCommentChars, 60000, 32768, 16384}

func runCommentGitHub(e *env, o *commentOptions, paths []string) error {
	threshold, err := failThreshold(o.failOn)
	if err != nil {
		return withCode(exitError, err)
	}
	switch o.behavior {
	case ghcomment.BehaviorUpdate, ghcomment.BehaviorNew, ghcomment.BehaviorDeleteAndNew:
	default:
		return withCode(exitError, fmt.Errorf("--behavior must be update, new or delete-and-new, got %q", o.behavior))
	}
	if o.headSHA != "" && !report.IsCommit(o.headSHA) {
		return withCode(exitError, fmt.Errorf("--head-sha must be a commit's hexadecimal SHA, got %q", o.headSHA))
	}
	target, err := resolveTarget(e, o)
	if err != nil {
		return withCode(exitError, err)
	}
	doc, err := loadCommentDocument(e, o, paths)
	if err != nil {
		return withCode(exitError, err)
	}
	doc.links = sourceLinks(e, target.repo, o.headSHA)
	outcome := documentExit(doc.check, doc.diff, threshold)

	client, err := ghcomment.New(target.repo, report.CommentMarker, ghcomment.Options{APIURL: target.apiURL, Token: target.token})
	if err != nil {
		return withCode(exitError, err)
	}
	var res ghcomment.Result
	var postErr error
	for _, size := range commentSizes {
		res, postErr = client.Upsert(e.ctx, target.pr, doc.render(size), o.behavior)
		var tooLong *ghcomment.TooLongError
		if !errors.As(postErr, &tooLong) {
			break
		}
	}
	if postErr == nil {
		what := map[string]string{"created": "posted a new comment", "updated": "updated its comment", "unchanged": "found its comment up to date"}[res.Action]
		fmt.Fprintf(e.stdout, "gpuguard: %s on %s#%d: %s\n", what, target.repo, target.pr, res.URL)
		return outcome
	}
	// The comment failed: the report still reaches the run's summary page.
	where, sumErr := stepSummaryFallback(e, doc)
	var tooLong *ghcomment.TooLongError
	switch {
	case errors.Is(postErr, ghcomment.ErrNoPermission):
		fmt.Fprintf(e.stderr, "gpuguard: cannot comment on %s#%d: %v.\n"+
			"  This is expected for pull requests from forks, whose token is read-only; see docs/github-action.md\n"+
			"  for the workflow_run pattern that comments safely. %s\n", target.repo, target.pr, postErr, where)
		if sumErr != nil {
			fmt.Fprintf(e.stderr, "gpuguard: warning: %v\n", sumErr)
		}
		return outcome
	case errors.As(postErr, &tooLong):
		fmt.Fprintf(e.stderr, "gpuguard: GitHub refused every size of the comment on %s#%d (%v). %s\n", target.repo, target.pr, postErr, where)
		return outcome
	}
	return withCode(exitError, fmt.Errorf("commenting on %s#%d: %w (%s)", target.repo, target.pr, postErr, strings.TrimSuffix(where, ".")))
}

// stepSummaryFallback puts the report in $GITHUB_STEP_SUMMARY unless check or diff already did in
// this job, and says where the report can be read.
func stepSummaryFallback(e *env, doc commentDocument) (string, error) {
	path := e.getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return "The report was not saved: GITHUB_STEP_SUMMARY is not set.", nil
	}
	if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), report.CommentMarker) {
		return "The report is in the job summary.", nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return "The report could not be written to the job summary.", fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteString(doc.render(0) + "\n"); err != nil {
		return "The report could not be written to the job summary.", fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	return "The report is in the job summary instead.", nil
}
