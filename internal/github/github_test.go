package github

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuguard/gpuguard/internal/github/githubtest"
)

const marker = "<!-- gpuguard:comment -->"
const token = "ghs_not_a_real_token_0123456789"

func newCommenter(t *testing.T, s *githubtest.Server, slept *[]time.Duration) *Commenter {
	t.Helper()
	c, err := New("octo/infra", marker, Options{APIURL: s.APIURL(), Token: token, Sleep: func(d time.Duration) {
		if slept != nil {
			*slept = append(*slept, d)
		}
		time.Sleep(d) // go-github remembers a secondary limit's reset time: the wait must be real
	}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestUpdateFindsTheCommentAcrossPages(t *testing.T) {
	s := githubtest.New()
	defer s.Close()
	var bodies []string
	for i := 0; i < 150; i++ {
		bodies = append(bodies, fmt.Sprintf("review comment %d", i))
	}
	s.Seed(7, bodies...)
	s.Seed(7, marker+"\nold report")
	s.Seed(7, "a later human comment")
	c := newCommenter(t, s, nil)
	res, err := c.Upsert(context.Background(), 7, marker+"\nnew report", BehaviorUpdate)
	if err != nil {
		t.Fatal(err)
	}
	cs := s.Comments(7)
	if res.Action != "updated" || len(cs) != 152 || cs[150].Body != marker+"\nnew report" || res.CommentID != cs[150].ID {
		t.Fatalf("result %+v; comment 150 = %q", res, cs[150].Body)
	}
	pages := 0
	for _, r := range s.Requests {
		if strings.HasPrefix(r, "GET ") {
			pages++
		}
	}
	if pages != 2 {
		t.Errorf("listed %d pages, want 2 (per_page=100): %v", pages, s.Requests)
	}
	for _, a := range s.Tokens {
		if a != "Bearer "+token {
			t.Fatalf("request without the token: %q", a)
		}
	}
	// A second run with the same body changes nothing and never duplicates.
	res, err = c.Upsert(context.Background(), 7, marker+"\nnew report", BehaviorUpdate)
	if err != nil || res.Action != "unchanged" || len(s.Comments(7)) != 152 {
		t.Fatalf("second run: %+v %v", res, err)
	}
}

func TestCreateNewAndDeleteAndNew(t *testing.T) {
	s := githubtest.New()
	defer s.Close()
	c := newCommenter(t, s, nil)
	if res, err := c.Upsert(context.Background(), 3, "first", BehaviorUpdate); err != nil || res.Action != "created" {
		t.Fatalf("%+v %v", res, err)
	}
	if cs := s.Comments(3); len(cs) != 1 || !strings.HasPrefix(cs[0].Body, marker) {
		t.Fatalf("the marker was not added: %+v", cs)
	}
	if _, err := c.Upsert(context.Background(), 3, "second", BehaviorNew); err != nil {
		t.Fatal(err)
	}
	if len(s.Comments(3)) != 2 {
		t.Fatal("new did not add a comment")
	}
	s.Seed(3, "unrelated")
	if _, err := c.Upsert(context.Background(), 3, "third", BehaviorDeleteAndNew); err != nil {
		t.Fatal(err)
	}
	cs := s.Comments(3)
	if len(cs) != 2 || cs[0].Body != "unrelated" || !strings.HasSuffix(cs[1].Body, "third") {
		t.Fatalf("delete-and-new left %+v", cs)
	}
	if _, err := c.Upsert(context.Background(), 3, "x", "sometimes"); err == nil {
		t.Fatal("a bad behavior was accepted")
	}
}

func TestPermissionAndValidationErrors(t *testing.T) {
	for _, status := range []int{403, 404} {
		s := githubtest.New()
		s.Fail(githubtest.Failure{Status: status})
		_, err := newCommenter(t, s, nil).Upsert(context.Background(), 1, "x", BehaviorUpdate)
		if !errors.Is(err, ErrNoPermission) || strings.Contains(err.Error(), token) {
			t.Errorf("%d: err = %v", status, err)
		}
		s.Close()
	}
	s := githubtest.New()
	defer s.Close()
	s.Fail(githubtest.Failure{Method: "POST", Status: 422})
	_, err := newCommenter(t, s, nil).Upsert(context.Background(), 1, "x", BehaviorUpdate)
	var tl *TooLongError
	if !errors.As(err, &tl) {
		t.Fatalf("422: err = %v", err)
	}
}

func TestRetriesServerErrorsAndSecondaryRateLimits(t *testing.T) {
	s := githubtest.New()
	defer s.Close()
	s.Fail(githubtest.Failure{Method: "GET", Status: 500, Times: 2})
	var slept []time.Duration
	c := newCommenter(t, s, &slept)
	c.sleep = func(d time.Duration) { slept = append(slept, d) } // 5xx needs no real wait
	if _, err := c.Upsert(context.Background(), 1, "x", BehaviorUpdate); err != nil {
		t.Fatal(err)
	}
	if len(slept) != 2 || slept[0] != time.Second || slept[1] != 2*time.Second {
		t.Fatalf("backoff = %v", slept)
	}
	s2 := githubtest.New()
	defer s2.Close()
	s2.Fail(githubtest.Failure{Method: "POST", Status: 403, Secondary: true, RetryAfter: 1})
	slept = nil
	start := time.Now()
	res, err := newCommenter(t, s2, &slept).Upsert(context.Background(), 1, "x", BehaviorUpdate)
	if err != nil || res.Action != "created" || len(slept) == 0 || slept[0] != time.Second || time.Since(start) < time.Second {
		t.Fatalf("secondary limit: %+v %v, slept %v", res, err, slept)
	}
	s3 := githubtest.New()
	defer s3.Close()
	s3.Fail(githubtest.Failure{Method: "GET", Status: 502, Times: 10})
	c3 := newCommenter(t, s3, nil)
	c3.sleep = func(time.Duration) {}
	if _, err := c3.Upsert(context.Background(), 1, "x", BehaviorUpdate); err == nil || !strings.Contains(err.Error(), "after 5 attempts") {
		t.Fatalf("persistent 5xx: %v", err)
	}
}

func TestPullRequestFromEvent(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]int{
		`{"number": 12, "pull_request": {"number": 12}}`:         12,
		`{"issue": {"number": 5, "pull_request": {"url": "x"}}}`: 5,
		`{"workflow_run": {"pull_requests": [{"number": 9}]}}`:   9,
	}
	for payload, want := range cases {
		p := filepath.Join(dir, "event.json")
		if err := os.WriteFile(p, []byte(payload), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := PullRequestFromEvent(p); err != nil || got != want {
			t.Errorf("%s: %d %v", payload, got, err)
		}
	}
	p := filepath.Join(dir, "push.json")
	_ = os.WriteFile(p, []byte(`{"ref": "refs/heads/main"}`), 0o644)
	if _, err := PullRequestFromEvent(p); err == nil {
		t.Error("a push event gave a pull request")
	}
	if _, err := New("no-slash", marker, Options{}); err == nil {
		t.Error("a bad repository was accepted")
	}
}
