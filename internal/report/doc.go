// Package report renders check and diff results for people and machines: an aligned table for
// terminals, JSON (the contract), Markdown (pull-request comments, step summaries), SARIF for
// code scanning and GitHub workflow-command annotations. Renderers write to an io.Writer and
// return errors; they never exit.
package report
