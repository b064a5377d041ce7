package policies

import (
	"context"
	"errors"
	"runtime/metrics"
	"time"
)

// DefaultMemoryLimit bounds how much an evaluation may grow the heap. Evaluating the built-in
// rules over 4,000 resources allocates about 45 MB; a policy from a pull request that builds
// huge collections (numbers.range(1, 1e9)) would otherwise grow until the runner kills the
// process.
const DefaultMemoryLimit = 1536 << 20

// errMemory is the cause an evaluation is cancelled with when it passes its memory limit.
var errMemory = errors.New("memory limit")

// heapMetric is the heap the last garbage collection found live. Garbage is left out, so a large
// but legitimate evaluation that allocates a lot is not stopped; a policy that keeps building
// is seen at the next collection, which its own growth triggers.
const heapMetric = "/gc/heap/live:bytes"

// heapBytes is the live heap as of the last garbage collection.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// watchMemory cancels ctx with errMemory when the heap grows more than limit bytes above where
// it was when the watch began. It samples every few milliseconds until ctx ends; OPA notices the
// cancellation at its next step (range generation checks on every element).
func watchMemory(ctx context.Context, limit uint64, cancel context.CancelCauseFunc) {
	ceiling := heapBytes() + limit
	tick := time.NewTicker(5 * time.Millisecond)
	go func() {
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if heapBytes() > ceiling {
					cancel(errMemory)
					return
				}
			}
		}
	}()
}
