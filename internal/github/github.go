package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// Behaviors of Upsert.
const (
	BehaviorUpdate       = "update"
	BehaviorNew          = "new"
	BehaviorDeleteAndNew = "delete-and-new"
)

// Options configure a Commenter.
type Options struct {
	// APIURL is the REST API root: https://api.github.com/ (default) or GitHub Enterprise's
	// https://HOST/api/v3/.
	APIURL string
	Token  string
	// HTTPClient is used as is when set (tests); else a client with a timeout.
	HTTPClient *http.Client
	// Sleep waits between retries; nil means time.Sleep (tests inject their own).
	Sleep func(time.Duration)
	// MaxAttempts bounds retries of one request (default 5).
	MaxAttempts int
}

// Commenter posts the comment on one repository.
type Commenter struct {
	client   *gh.Client
	owner    string
	repo     string
	marker   string
	sleep    func(time.Duration)
	attempts int
}

// ErrNoPermission means the token may not comment: a fork's pull request, or a token without
// pull-requests: write. Callers fall back to the step summary.
var ErrNoPermission = errors.New("the token may not comment on this pull request")

// New returns a Commenter for owner/repo.
func New(repository, marker string, opts Options) (*Commenter, error) {
	owner, repo, ok := strings.Cut(repository, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return nil, fmt.Errorf("repository must be OWNER/NAME, got %q", repository)
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	client := gh.NewClient(hc)
	if opts.Token != "" {
		client = client.WithAuthToken(opts.Token)
	}
	if opts.APIURL != "" && strings.TrimRight(opts.APIURL, "/") != "https://api.github.com" {
		u, err := url.Parse(strings.TrimRight(opts.APIURL, "/") + "/")
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("invalid GitHub API URL %q", opts.APIURL)
		}
		client.BaseURL = u
		client.UploadURL = u
	}
	c := &Commenter{client: client, owner: owner, repo: repo, marker: marker, sleep: opts.Sleep, attempts: opts.MaxAttempts}
	if c.sleep == nil {
		c.sleep = time.Sleep
	}
	if c.attempts <= 0 {
		c.attempts = 5
	}
	return c, nil
}

// Result says what Upsert did.
type Result struct {
	Action    string // created, updated, unchanged
	CommentID int64
	URL       string
}

// Upsert posts body on the pull request. With BehaviorUpdate it edits gpuguard's earlier comment
// (found by the marker) or creates one; BehaviorNew always creates; BehaviorDeleteAndNew deletes
// every earlier gpuguard comment, then creates.
func (c *Commenter) Upsert(ctx context.Context, pr int, body, behavior string) (Result, error) {
	if !strings.Contains(body, c.marker) {
		body = c.marker + "\n" + body
	}
	switch behavior {
	case "", BehaviorUpdate, BehaviorNew, BehaviorDeleteAndNew:
	default:
		return Result{}, fmt.Errorf("behavior must be update, new or delete-and-new, got %q", behavior)
	}
	var existing []*gh.IssueComment
	if behavior != BehaviorNew {
		var err error
		if existing, err = c.find(ctx, pr); err != nil {
			return Result{}, err
		}
	}
	if (behavior == "" || behavior == BehaviorUpdate) && len(existing) > 0 {
		cm := existing[0]
		if cm.GetBody() == body {
			return Result{Action: "unchanged", CommentID: cm.GetID(), URL: cm.GetHTMLURL()}, nil
		}
		var out *gh.IssueComment
		err := c.retry(ctx, func() (*gh.Response, error) {
			var resp *gh.Response
			var err error
			out, resp, err = c.client.Issues.EditComment(ctx, c.owner, c.repo, cm.GetID(), &gh.IssueComment{Body: &body})
			return resp, err
		})
		if err != nil {
			return Result{}, err
		}
		return Result{Action: "updated", CommentID: out.GetID(), URL: out.GetHTMLURL()}, nil
	}
	if behavior == BehaviorDeleteAndNew {
		for _, cm := range existing {
			id := cm.GetID()
			if err := c.retry(ctx, func() (*gh.Response, error) {
				return c.client.Issues.DeleteComment(ctx, c.owner, c.repo, id)
			}); err != nil {
				return Result{}, err
			}
		}
	}
	var out *gh.IssueComment
	err := c.retry(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		out, resp, err = c.client.Issues.CreateComment(ctx, c.owner, c.repo, pr, &gh.IssueComment{Body: &body})
		return resp, err
	})
	if err != nil {
		return Result{}, err
	}
	return Result{Action: "created", CommentID: out.GetID(), URL: out.GetHTMLURL()}, nil
}

// find returns gpuguard's earlier comments, oldest first, across all pages.
func (c *Commenter) find(ctx context.Context, pr int) ([]*gh.IssueComment, error) {
	var found []*gh.IssueComment
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for page := 0; page < 1000; page++ {
		var comments []*gh.IssueComment
		var resp *gh.Response
		err := c.retry(ctx, func() (*gh.Response, error) {
			var err error
			comments, resp, err = c.client.Issues.ListComments(ctx, c.owner, c.repo, pr, opts)
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		for _, cm := range comments {
			if strings.Contains(cm.GetBody(), c.marker) {
				found = append(found, cm)
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return found, nil
		}
		opts.Page = resp.NextPage
	}
	return found, nil
}

// TooLongError means GitHub refused the body (422).
type TooLongError struct{ Message string }

func (e *TooLongError) Error() string { return "GitHub refused the comment: " + e.Message }

// retry runs one API call, retrying 5xx answers and secondary rate limits with backoff. A 403
// or 404 is ErrNoPermission; a 422 is a TooLongError; other errors are returned as they are.
func (c *Commenter) retry(ctx context.Context, call func() (*gh.Response, error)) error {
	delay := time.Second
	var last error
	for attempt := 1; attempt <= c.attempts; attempt++ {
		resp, err := call()
		if err == nil {
			return nil
		}
		last = err
		var abuse *gh.AbuseRateLimitError
		var rate *gh.RateLimitError
		var er *gh.ErrorResponse
		wait := time.Duration(0)
		switch {
		case errors.As(err, &abuse):
			wait = delay
			if abuse.RetryAfter != nil {
				wait = *abuse.RetryAfter
			}
			if wait > 2*time.Minute {
				return fmt.Errorf("GitHub's secondary rate limit asks to wait %s: %w", wait.Round(time.Second), err)
			}
		case errors.As(err, &rate):
			return fmt.Errorf("GitHub API rate limit exhausted until %s: %w", rate.Rate.Reset.Time.Format(time.RFC3339), err)
		case errors.As(err, &er) && er.Response != nil:
			switch code := er.Response.StatusCode; {
			case code == http.StatusForbidden || code == http.StatusNotFound:
				return fmt.Errorf("%w (HTTP %d: %s)", ErrNoPermission, code, er.Message)
			case code == http.StatusUnprocessableEntity:
				return &TooLongError{Message: er.Message}
			case code == http.StatusUnauthorized:
				return fmt.Errorf("GitHub rejected the token (HTTP 401): %s", er.Message)
			case code >= 500:
				wait = delay
			default:
				return err
			}
		default:
			if resp != nil && resp.StatusCode >= 500 {
				wait = delay
			} else if ctx.Err() != nil {
				return ctx.Err()
			} else {
				wait = delay // a network error: retry
			}
		}
		if attempt == c.attempts {
			break
		}
		c.sleep(wait)
		delay *= 2
	}
	return fmt.Errorf("GitHub API failed after %d attempts: %w", c.attempts, last)
}

// Event is the part of a workflow event payload gpuguard reads.
type Event struct {
	Number      int          `json:"number"`
	PullRequest *pullRequest `json:"pull_request"`
	Issue       *struct {
		Number      int             `json:"number"`
		PullRequest json.RawMessage `json:"pull_request"`
	} `json:"issue"`
	WorkflowRun *struct {
		HeadSHA      string        `json:"head_sha"`
		PullRequests []pullRequest `json:"pull_requests"`
	} `json:"workflow_run"`
}

// pullRequest is the part of a webhook's pull request gpuguard reads.
type pullRequest struct {
	Number int       `json:"number"`
	Head   commitRef `json:"head"`
	Base   commitRef `json:"base"`
}

type commitRef struct {
	SHA string `json:"sha"`
}

func readEvent(path string) (Event, error) {
	var ev Event
	b, err := os.ReadFile(path)
	if err != nil {
		return ev, fmt.Errorf("event payload: %w", err)
	}
	if err := json.Unmarshal(b, &ev); err != nil {
		return ev, fmt.Errorf("event payload %s: %w", path, err)
	}
	return ev, nil
}

// CommitsFromEvent reads the pull request's head and base commits from $GITHUB_EVENT_PATH's
// payload (pull_request, pull_request_target, workflow_run); empty when the event names none.
func CommitsFromEvent(path string) (head, base string, err error) {
	ev, err := readEvent(path)
	if err != nil {
		return "", "", err
	}
	switch {
	case ev.PullRequest != nil:
		return ev.PullRequest.Head.SHA, ev.PullRequest.Base.SHA, nil
	case ev.WorkflowRun != nil && len(ev.WorkflowRun.PullRequests) > 0:
		return ev.WorkflowRun.PullRequests[0].Head.SHA, ev.WorkflowRun.PullRequests[0].Base.SHA, nil
	case ev.WorkflowRun != nil:
		return ev.WorkflowRun.HeadSHA, "", nil
	}
	return "", "", nil
}

// PullRequestFromEvent reads the pull request number from $GITHUB_EVENT_PATH's payload:
// pull_request and pull_request_target events, issue_comment on a pull request, and
// workflow_run (the safe pattern for forks).
func PullRequestFromEvent(path string) (int, error) {
	ev, err := readEvent(path)
	if err != nil {
		return 0, err
	}
	switch {
	case ev.PullRequest != nil && ev.PullRequest.Number > 0:
		return ev.PullRequest.Number, nil
	case ev.Issue != nil && len(ev.Issue.PullRequest) > 0 && ev.Issue.Number > 0:
		return ev.Issue.Number, nil
	case ev.WorkflowRun != nil && len(ev.WorkflowRun.PullRequests) > 0:
		return ev.WorkflowRun.PullRequests[0].Number, nil
	}
	return 0, fmt.Errorf("event payload %s is not about a pull request: pass --pull-request", path)
}
