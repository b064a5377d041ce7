package kubernetes

import (
	"regexp"
	"strings"
)

// migLayoutSlice matches the GPU Operator's default layouts that split every GPU into one slice
// profile: all-1g.10gb; the .me variants (media extensions) are the same slice.
var migLayoutSlice = regexp.MustCompile(`^all-([1-7]g\.[0-9]+gb)(?:[.+]me)?$`)

// MIGLayoutSlice reads a node's nvidia.com/mig.config label: the layout, named in the MIG
// manager's mig-parted config, that NVIDIA's GPU Operator splits the node's GPUs into. Its
// default config names all-<profile> for every GPU split into slices of that profile (each
// nvidia.com/gpu a pod asks for under the single MIG strategy is one), all-disabled and
// all-enabled (no slices), and all-balanced (a mix of slices on each GPU, which pods ask for by
// name under the mixed strategy). It returns the one slice of the layout, or "" and, for a
// layout that is not whole GPUs, why the GPUs are still judged whole.
// https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html
// https://github.com/NVIDIA/mig-parted (examples/config.yaml)
func MIGLayoutSlice(layout string) (slice, why string) {
	layout = strings.TrimSpace(layout)
	if m := migLayoutSlice.FindStringSubmatch(layout); m != nil {
		return m[1], ""
	}
	switch layout {
	case "", "all-disabled":
		return "", ""
	case "all-enabled":
		return "", "enables MIG mode without creating slices: the GPUs are judged whole"
	case "all-balanced":
		return "", "splits each GPU into a mix of slices, which pods ask for by name (nvidia.com/mig-<profile>): the GPUs are judged whole"
	}
	return "", "is not one of the GPU Operator's default layouts (all-<profile>): which slices it makes is not known, and the GPUs are judged whole"
}
