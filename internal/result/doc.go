// Package result holds the documents gpuguard outputs and reads back: the check result and the
// diff result (DESIGN.md, "JSON output of check" and "of diff"), and the findings policies
// produce. Field names are a contract for scripts: fields may be added, never renamed.
package result
