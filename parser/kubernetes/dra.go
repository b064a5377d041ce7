package kubernetes

import (
	"fmt"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// Dynamic Resource Allocation (resource.k8s.io, GA in Kubernetes 1.34): a pod asks for GPUs
// through resourceClaims that name a ResourceClaimTemplate (one claim per pod) or a shared
// ResourceClaim, and the claim's device requests name a DeviceClass such as gpu.nvidia.com
// instead of an nvidia.com/gpu limit. Without reading them such a pod would look GPU-less and be
// left out in silence. https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/

// podClaim is one entry of a pod's spec.resourceClaims.
type podClaim struct {
	Name                      string `yaml:"name"`
	ResourceClaimTemplateName string `yaml:"resourceClaimTemplateName"`
	ResourceClaimName         string `yaml:"resourceClaimName"`
}

// deviceRequest is one request of a claim, in any of the API's versions: v1beta1 puts the class
// and count on the request, v1beta2 and v1 under exactly, and firstAvailable lists
// alternatives in order of preference (the first is taken).
type deviceRequest struct {
	Name           string `yaml:"name"`
	deviceAsk      `yaml:",inline"`
	Exactly        *deviceAsk  `yaml:"exactly"`
	FirstAvailable []deviceAsk `yaml:"firstAvailable"`
}

type deviceAsk struct {
	DeviceClassName string `yaml:"deviceClassName"`
	AllocationMode  string `yaml:"allocationMode"`
	Count           *int64 `yaml:"count"`
}

func (r deviceRequest) ask() deviceAsk {
	switch {
	case r.Exactly != nil:
		return *r.Exactly
	case len(r.FirstAvailable) > 0:
		return r.FirstAvailable[0]
	}
	return r.deviceAsk
}

// deviceClaim is what one claim (template or shared claim) holds of GPUs.
type deviceClaim struct {
	address  string // ResourceClaimTemplate/ns/name
	resource string // the device plugin resource it stands for, for pricing (nvidia.com/gpu)
	count    int64
	class    string
	all      bool // allocationMode All: every matching device of the node
	shared   bool // a ResourceClaim several pods may share
}

// gpuClassResource maps a DeviceClass name to the extended resource gpuguard prices it as:
// NVIDIA's and AMD's DRA drivers publish gpu.nvidia.com / gpu.amd.com; a MIG class is priced
// as whole GPUs (its profile is chosen at allocation). Other classes are not GPUs.
func gpuClassResource(class string) string {
	c := strings.ToLower(class)
	switch {
	case strings.Contains(c, "nvidia") && (strings.Contains(c, "gpu") || strings.Contains(c, "mig")):
		return ResourceNvidiaGPU
	case strings.Contains(c, "amd") && strings.Contains(c, "gpu"):
		return ResourceAMDGPU
	case strings.Contains(c, "gpu"):
		return ResourceNvidiaGPU
	}
	return ""
}

// claimIndex holds the claims of a stream by namespace/name.
type claimIndex struct {
	templates map[string]deviceClaim
	claims    map[string]deviceClaim
}

// decodeClaim reads the GPU requests of a ResourceClaimTemplate (spec.spec.devices) or a
// ResourceClaim (spec.devices); a claim for other devices has no resource.
func decodeClaim(o *object) (deviceClaim, error) {
	type devices struct {
		Devices struct {
			Requests []deviceRequest `yaml:"requests"`
		} `yaml:"devices"`
	}
	var reqs []deviceRequest
	if o.Kind == "ResourceClaimTemplate" {
		var spec struct {
			Spec devices `yaml:"spec"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return deviceClaim{}, err
		}
		reqs = spec.Spec.Devices.Requests
	} else {
		var spec devices
		if err := decodeSpec(o, &spec); err != nil {
			return deviceClaim{}, err
		}
		reqs = spec.Devices.Requests
	}
	c := deviceClaim{address: o.address(), shared: o.Kind == "ResourceClaim"}
	for _, r := range reqs {
		a := r.ask()
		res := gpuClassResource(a.DeviceClassName)
		if res == "" {
			continue
		}
		if c.resource != "" && c.resource != res {
			return deviceClaim{}, fmt.Errorf("claim requests several kinds of GPU (%s, %s): only %s is priced", c.resource, res, c.resource)
		}
		c.resource, c.class = res, a.DeviceClassName
		switch {
		case a.AllocationMode == "All":
			c.all = true
			c.count++
		case a.Count != nil:
			if *a.Count < 1 || *a.Count > maxGPUsPerPod {
				return deviceClaim{}, fmt.Errorf("request %q: count %d is not a number of devices", r.Name, *a.Count)
			}
			c.count += *a.Count
		default:
			c.count++ // ExactCount defaults to one device
		}
	}
	return c, nil
}

// maxGPUsPerPod bounds a claim's count, as quantities are bounded.
const maxGPUsPerPod = 1024

// podClaims sums the GPUs a pod's resourceClaims bring, by resource, with a note per claim
// (saying when a count is a floor, allocationMode All, or shared). missing lists the claims that
// name a template or claim not among the objects read.
func podClaims(spec podSpec, ns string, idx *claimIndex) (sum map[string]int64, notes []string, missing []string) {
	sum = map[string]int64{}
	for _, pc := range spec.ResourceClaims {
		var c deviceClaim
		var ok bool
		switch {
		case pc.ResourceClaimTemplateName != "":
			c, ok = idx.templates[ns+"/"+pc.ResourceClaimTemplateName]
			if !ok {
				missing = append(missing, "ResourceClaimTemplate/"+ns+"/"+pc.ResourceClaimTemplateName)
				continue
			}
		case pc.ResourceClaimName != "":
			c, ok = idx.claims[ns+"/"+pc.ResourceClaimName]
			if !ok {
				missing = append(missing, "ResourceClaim/"+ns+"/"+pc.ResourceClaimName)
				continue
			}
		default:
			continue
		}
		if c.resource == "" {
			continue // a claim for other devices
		}
		sum[c.resource] += c.count
		note := fmt.Sprintf("%d GPU%s through DRA: claim %q from %s (device class %s)", c.count, parser.Plural(c.count), pc.Name, c.address, c.class)
		if c.all {
			note += "; allocationMode All takes every such device of the node: counted as one each, a floor"
		}
		if c.shared {
			note += "; a shared ResourceClaim: every pod that names it uses the same devices, so pods may be counted more than once"
		}
		notes = append(notes, note)
	}
	return sum, notes, missing
}
