// Command gpuguard finds the GPU instances Terraform and Kubernetes manifests declare, prices
// them, checks their workloads fit and evaluates cost guardrails. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"

	// Scheduled scaling and CronJobs name time zones (Europe/Berlin, a Windows zone's tz
	// equivalent): the Action's Alpine image and Windows have no tz database of their own, and
	// without one every schedule in a zone would go unreplayed. OPA's topdown imports it too
	// today (so the binary does not grow); gpuguard does not rely on that.
	_ "time/tzdata"
)

func main() {
	// gpuguard is a short-lived batch program: trading memory for fewer collections makes a
	// check of 1,000 stacks about 40% faster (docs/performance.md), and the soft memory limit
	// keeps a very large scan from growing without bound. GOGC and GOMEMLIMIT still win.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(800)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(2 << 30)
	}
	// GPUGUARD_CPUPROFILE=FILE writes a CPU profile of the run (docs/performance.md).
	if path := os.Getenv("GPUGUARD_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer f.Close()
				defer pprof.StopCPUProfile()
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	exit(code)
}

// exit runs deferred work (the profile) before leaving with code.
func exit(code int) {
	pprof.StopCPUProfile()
	os.Exit(code)
}
