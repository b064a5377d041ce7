// Package estimator turns parsed resources into estimates: the monthly cost of each from the
// catalog (package catalog), and, with a workload profile attached, its GPU memory fit and the
// cheaper instances that would do (fit.go, recommend.go). Kubernetes pods that name no single
// node type get the cheapest node their labels allow that holds their GPUs, CPU and memory
// (pods.go); on GCP a T4, V100, P100 or P4 node is an N1 VM with the GPUs attached (attached.go),
// and such VMs are among the cheaper alternatives recommended (for an accelerator-optimized
// machine, an N1 VM at least as large as its host: n1Host). A vGPU slice (AWS g6f, Azure
// NVads A10 v5, GCP's fractional G4) is one GPU with the slice's memory (instanceTarget).
//
// Costs are integer micro-dollars (internal/money): hourly price × quantity, then × hours, rounded
// once per resource; totals are sums of those. A resource the catalog cannot price keeps a nil
// cost and an unpriced_reason; it is never priced at $0. Every figure derived rather than read
// from a dated catalog row is marked price_estimated. The package does no I/O and never prints.
package estimator
