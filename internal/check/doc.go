// Package check runs gpuguard's main job over a set of paths and returns the check document:
// scan the inputs (parser/scan), apply the config (hours, profiles), price every resource
// (estimator), judge memory fit and recommend cheaper fits, evaluate the guardrails (policies)
// and total it all. cmd/gpuguard's check and diff commands both call it; it never prints.
package check
