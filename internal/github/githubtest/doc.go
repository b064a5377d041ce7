// Package githubtest is a fake GitHub REST API for tests and for the Action's smoke script:
// enough of /repos/{owner}/{repo}/issues comments (list with pagination, create, edit, delete)
// speaking GitHub's JSON, with injectable failures (403, 404, 422, 5xx, secondary rate limits).
package githubtest
