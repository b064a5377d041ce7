package catalog

// AttachLimit says how large a GCP N1 VM may be with GPUs of one model attached: with GPUs of
// them it may have at most MaxVCPUs vCPUs and MaxMemoryGiB of memory.
type AttachLimit struct {
	GPUs         int
	MaxVCPUs     int
	MaxMemoryGiB float64
}

// attachLimits are the GPU counts an N1 VM takes of each attachable model and the VM sizes each
// count allows: Compute Engine's "GPU machine types" page, N1 general-purpose tables
// (https://cloud.google.com/compute/docs/gpus, read 2026-11-22). Four P100s allow 96 vCPUs and
// 624 GB in most zones (64 and 208 in a few); the larger figure is kept. K80s are retired and
// not in the catalog. Other GPU models come only in their own machine types (A2, A3, G2, G4).
var attachLimits = map[string][]AttachLimit{
	"nvidia-tesla-t4":   {{1, 48, 312}, {2, 48, 312}, {4, 96, 624}},
	"nvidia-tesla-p4":   {{1, 24, 156}, {2, 48, 312}, {4, 96, 624}},
	"nvidia-tesla-v100": {{1, 12, 78}, {2, 24, 156}, {4, 48, 312}, {8, 96, 624}},
	"nvidia-tesla-p100": {{1, 16, 104}, {2, 32, 208}, {4, 96, 624}},
}

// AttachLimits lists, smallest count first, how many GPUs of a GCP accelerator type an N1 VM can
// take and the largest VM each count allows; nil when the type is not attached to N1 VMs.
func AttachLimits(accelerator string) []AttachLimit {
	return attachLimits[accelerator]
}
