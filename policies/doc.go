// Package policies owns gpuguard's guardrails: the built-in Rego rules (rego/builtin, embedded,
// each with # METADATA and unit tests), the engine that compiles them with the user's policies
// once and evaluates the whole input (one prepared query per rule set, run concurrently), the
// sandbox they run in (no http.send, no net.*, no opa.runtime: a pull request's Rego cannot read
// the token or reach the network), and suppressions.
//
// It returns findings; it never prints or exits.
package policies
