package main

import (
	"os"
	"path/filepath"

	ghcomment "github.com/gpuguard/gpuguard/internal/github"
	"github.com/gpuguard/gpuguard/internal/gitref"
	"github.com/gpuguard/gpuguard/internal/report"
)

// sourceLinks links the Markdown report's resources to the lines that declare them on GitHub,
// when the run knows the repository and the commit: repo and head come from comment github's
// --repo and --head-sha, else from GitHub Actions ($GITHUB_REPOSITORY; the pull request's head
// and base commits from $GITHUB_EVENT_PATH, else $GITHUB_SHA except on issue_comment), on
// $GITHUB_SERVER_URL. Report
// paths are relative to the working directory, which is placed in the repository through
// $GITHUB_WORKSPACE or git. Anything missing means no links, never a wrong one.
func sourceLinks(e *env, repo, head string) *report.SourceLinks {
	if repo == "" {
		repo = e.getenv("GITHUB_REPOSITORY")
	}
	if repo == "" {
		return nil
	}
	var base string
	if head == "" {
		if path := e.getenv("GITHUB_EVENT_PATH"); path != "" {
			head, base, _ = ghcomment.CommitsFromEvent(path) // an unreadable event was reported where it matters
		}
	}
	// GITHUB_SHA is the commit the workflow checked; on issue_comment it is the default branch's,
	// not the pull request's: no links rather than links to other files.
	if head == "" && e.getenv("GITHUB_EVENT_NAME") != "issue_comment" {
		head = e.getenv("GITHUB_SHA")
	}
	if head == "" {
		return nil
	}
	server := e.getenv("GITHUB_SERVER_URL")
	if server == "" {
		server = "https://github.com"
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil
	}
	top := e.getenv("GITHUB_WORKSPACE")
	if !filepath.IsAbs(top) {
		if top, err = gitref.Top(e.ctx, cwd); err != nil {
			return nil
		}
	}
	// The working directory and the top may name the same place through different links.
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	return report.NewSourceLinks(server, repo, head, base, top, cwd)
}
