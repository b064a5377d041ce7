package parser

import (
	"cmp"
	"fmt"
)

// CloudRunGPUs marks r as Cloud Run instances (a service, job or worker pool), each with gpus of
// the accelerator its node selector names ("" when it names none: Cloud Run's default GPU).
// Cloud Run bills GPU instances per second at prices of its own, which are not in the catalog:
// r is left unpriced with that reason, never priced as a VM or as $0. Its GPUs are named, so a
// workload profile still gets a memory fit; Cloud Run offers no spot capacity and no MIG.
// https://cloud.google.com/run/docs/configuring/services/gpu
func (r *Resource) CloudRunGPUs(accelerator string, gpus int) {
	gpus = max(gpus, 1)
	r.Provider, r.InstanceType = GCP, ""
	if accelerator != "" {
		r.Accelerators = []Accelerator{{Type: accelerator, Count: gpus}}
	} else {
		r.Note("no accelerator named: Cloud Run attaches its default GPU")
	}
	r.NoSpot, r.NoMIG = true, "Cloud Run"
	r.AddUnresolved("price", fmt.Sprintf("Cloud Run bills its GPU instances (%d× %s each) per second; Cloud Run prices are not in gpuguard's catalog", gpus, cmp.Or(accelerator, "GPU")))
}
