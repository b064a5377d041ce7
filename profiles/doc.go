// Package profiles owns the WorkloadProfile (DESIGN.md, "Workload profile"): its YAML schema,
// strict validation with file and line, the embedded model presets taken from public model
// configs, and (capture.go) sampling a running workload through NVML to fill its measured
// section.
//
// It describes workloads; it does not estimate memory (estimator/memory does) and never prints.
package profiles
