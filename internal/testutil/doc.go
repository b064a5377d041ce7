// Package testutil holds helpers for tests only: golden files with an -update flag that
// rewrites them, and a readable diff when they do not match. Rewritten golden files are
// reviewed before they are committed.
package testutil
