// Package memory estimates the per-GPU peak memory of a workload profile, term by term, following
// shared/reference/memory/FORMULAS.md. Every term cites its source in a comment; the result is an
// estimate (or, when the profile carries an NVML measurement, the measured peak) and says so.
//
// It knows nothing of prices or instance types: estimator/fit.go compares the result with a GPU.
package memory
