// Package catalog owns gpuguard's price and hardware data: the embedded, dated tables under
// data/ (instance types, prices per region and purchase option, GPU models, MIG profiles), the
// price overlays written by `gpuguard pricing update`, and the lookups over them; and which GCP
// GPUs attach to N1 VMs, in what counts and up to what VM size (attach.go, from Compute Engine's
// documentation).
//
// Every price carries its source and date. A price the tables do not hold for a purchase option
// (spot, reserved) is derived from on-demand with the documented default discounts and marked an
// estimate; a type or region the tables do not know is reported with a reason, never priced $0.
// The package does no I/O beyond reading the files it is given, and never prints.
package catalog
