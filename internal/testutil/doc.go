// Package testutil holds helpers for tests only: golden files and documents' examples with an
// -update flag that rewrites them (rewritten files are reviewed before they are committed), a
// readable diff when they do not match, file trees written from a map, and git with a fixed author.
package testutil
