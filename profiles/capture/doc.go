// Package capture measures a workload on real GPUs: it runs a command (or watches a running
// workload for a while), samples every selected GPU through NVML at an interval, and sums the
// samples up into a profile's measured section (peak memory, utilization, power) with a
// timeline of what it saw.
//
// The NVML adapter (nvml.go) needs cgo and the NVIDIA driver and is built only on Linux with
// cgo; elsewhere a stub (nvml_stub.go) returns a clear error. Everything else is plain Go and
// works against the Library interface, which tests fill with go-nvml's mocks. The package never
// prints: progress reaches the caller through a callback.
package capture
