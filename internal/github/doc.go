// Package github posts gpuguard's pull-request comment with go-github: it finds its earlier
// comment by a hidden marker across paginated comment lists and edits it in place (or deletes
// and recreates it, or always adds a new one), retries server errors and secondary rate limits
// with backoff, and tells the caller when the token may not comment (fork pull requests) so the
// report can go to the step summary instead. It never logs the token.
package github
