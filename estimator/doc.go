// Package estimator turns parsed resources into estimates: the monthly cost of each from the
// catalog (package catalog), and, with a workload profile attached, its GPU memory fit and the
// cheaper instances that would do (fit.go, recommend.go).
//
// Costs are integer micro-dollars (internal/money): hourly price × quantity, then × hours, rounded
// once per resource; totals are sums of those. A resource the catalog cannot price keeps a nil
// cost and an unpriced_reason; it is never priced at $0. Every figure derived rather than read
// from a dated catalog row is marked price_estimated. The package does no I/O and never prints.
package estimator
