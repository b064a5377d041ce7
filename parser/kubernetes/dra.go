package kubernetes

import (
	"fmt"
	"maps"
	"slices"
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
	DeviceClassName string        `yaml:"deviceClassName"`
	AdminAccess     bool          `yaml:"adminAccess"`
	AllocationMode  string        `yaml:"allocationMode"`
	Count           *int64        `yaml:"count"`
	Selectors       []celSelector `yaml:"selectors"`
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
	// wholeMIG says its devices are MIG devices of a profile no selector names: priced as
	// whole GPUs.
	wholeMIG bool
	// selection is what the CEL selectors of its GPU requests and their DeviceClasses say of
	// the GPUs.
	selection deviceSelection
	// sharing is how NVIDIA's driver shares its GPUs, when its configuration (or its
	// DeviceClass's) says; problems are what of that configuration could not be read, errors
	// at their lines that leave the claim's devices as they are.
	sharing  *parser.ClaimSharing
	problems []error
	// quota is what the claim counts against a namespace's quota on each device class's
	// devices (<class>.deviceclass.resource.k8s.io/devices), by class: claimQuotaUsage.
	quota map[string]int64
	// reqs are its device requests as written, for Kueue's count (kueueDRA).
	reqs []deviceRequest
}

// claimQuotaUsage is what a claim's requests count against the quotas on each device class's
// devices, as the API server's claim evaluator counts them (kubernetes/kubernetes
// pkg/quota/v1/evaluator/core/resource_claims.go; https://kubernetes.io/docs/concepts/policy/resource-quotas/,
// read 2026-11): an exact count its count (1 by default); allocationMode All the most devices
// one allocation can hold, 32; of a request's firstAvailable alternatives, the largest for each
// class. Requests for any class count, GPU or not.
func claimQuotaUsage(reqs []deviceRequest) map[string]int64 {
	const allocationResultsMaxSize = 32
	devices := func(a deviceAsk) int64 {
		switch {
		case a.AllocationMode == "All":
			return allocationResultsMaxSize
		case a.Count != nil:
			return max(*a.Count, 0)
		}
		return 1
	}
	usage := map[string]int64{}
	for _, r := range reqs {
		if len(r.FirstAvailable) > 0 {
			largest := map[string]int64{}
			for _, a := range r.FirstAvailable {
				largest[a.DeviceClassName] = max(largest[a.DeviceClassName], devices(a))
			}
			for class, n := range largest {
				usage[class] += n
			}
			continue
		}
		a := r.ask()
		usage[a.DeviceClassName] += devices(a)
	}
	return usage
}

// claimObject is a ResourceClaim among the objects read: it is created as it is, and counts
// against its namespace's quotas whatever pods name it.
type claimObject struct {
	key     string // its build and namespace: root|namespace
	address string
	quota   map[string]int64
}

// deviceClass is a DeviceClass among the objects read: the driver its selectors name ("" when
// none does) and what they say of its devices.
type deviceClass struct {
	driver    string
	selection deviceSelection
	config    []sharingConfig // spec.config, applied to every claim for its devices
	// extendedName is spec.extendedResourceName: pods may ask for its devices by that name.
	extendedName string
	// problems are what of config could not be read, errors at their lines.
	problems []error
}

// decodeDeviceClass reads a DeviceClass's selectors (spec.selectors, in every API version).
func decodeDeviceClass(o *object) (deviceClass, error) {
	var spec struct {
		Selectors            []celSelector  `yaml:"selectors"`
		Config               []deviceConfig `yaml:"config"`
		ExtendedResourceName string         `yaml:"extendedResourceName"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return deviceClass{}, err
	}
	c := deviceClass{extendedName: spec.ExtendedResourceName}
	c.config, c.problems = readConfigs(spec.Config)
	for _, sel := range spec.Selectors {
		if sel.CEL == nil {
			continue
		}
		if m := celDriver.FindStringSubmatch(sel.CEL.Expression); m != nil && c.driver == "" {
			c.driver = m[1]
		}
	}
	c.selection = readSelectors(spec.Selectors)
	return c, nil
}

// classResource is the extended resource gpuguard prices a DeviceClass's devices as: by the
// driver its selectors name when the class is among the objects read (NVIDIA's gpu.nvidia.com,
// AMD's gpu.amd.com; another driver's devices are not GPUs), else by its name (gpuClassResource).
func (idx *claimIndex) classResource(class string) (string, deviceClass) {
	c, ok := idx.classes[class]
	if !ok || c.driver == "" {
		return gpuClassResource(class), c
	}
	switch strings.ToLower(c.driver) {
	case "gpu.nvidia.com": // its GPUs and their MIG devices
		return ResourceNvidiaGPU, c
	case "gpu.amd.com":
		return ResourceAMDGPU, c
	}
	return "", c // another driver's devices: NVIDIA's compute-domain.nvidia.com, a NIC
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

// claimIndex holds the claims of a stream by namespace/name, and the DeviceClasses by name
// (cluster-scoped).
type claimIndex struct {
	templates map[string]deviceClaim
	claims    map[string]deviceClaim
	classes   map[string]deviceClass
	// byExtendedName is the class each extendedResourceName names (the one of those sharing a
	// name that sorts first: the API picks the newest, which files do not say).
	byExtendedName map[string]string
	// objects are the ResourceClaims read, in order, for the quotas of their namespaces.
	objects []claimObject
}

// decodeClaim reads the GPU requests of a ResourceClaimTemplate (spec.spec.devices) or a
// ResourceClaim (spec.devices); a claim for other devices has no resource.
func decodeClaim(o *object, idx *claimIndex) (deviceClaim, error) {
	type devices struct {
		Devices struct {
			Requests []deviceRequest `yaml:"requests"`
			Config   []deviceConfig  `yaml:"config"`
		} `yaml:"devices"`
	}
	var reqs []deviceRequest
	var config []deviceConfig
	if o.Kind == "ResourceClaimTemplate" {
		var spec struct {
			Spec devices `yaml:"spec"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return deviceClaim{}, err
		}
		reqs, config = spec.Spec.Devices.Requests, spec.Spec.Devices.Config
	} else {
		var spec devices
		if err := decodeSpec(o, &spec); err != nil {
			return deviceClaim{}, err
		}
		reqs, config = spec.Devices.Requests, spec.Devices.Config
	}
	c := deviceClaim{address: o.address(), shared: o.Kind == "ResourceClaim", quota: claimQuotaUsage(reqs), reqs: reqs}
	configs, problems := readConfigs(config)
	c.problems = problems
	for _, r := range reqs {
		a := r.ask()
		res, class := idx.classResource(a.DeviceClassName)
		if res == "" {
			continue
		}
		sel := readSelectors(a.Selectors).and(class.selection)
		sel.mig = sel.mig || strings.Contains(strings.ToLower(a.DeviceClassName), "mig")
		if res == ResourceNvidiaGPU && sel.migProfile != "" {
			// NVIDIA's driver publishes each MIG device with its profile: priced as that slice.
			res = ResourceNvidiaMIG + sel.migProfile
		}
		if c.resource != "" && c.resource != res {
			return deviceClaim{}, fmt.Errorf("claim requests several kinds of GPU (%s, %s): only %s is priced", c.resource, res, c.resource)
		}
		c.resource, c.class = res, a.DeviceClassName
		c.wholeMIG = c.wholeMIG || sel.mig && sel.migProfile == ""
		c.selection = c.selection.and(sel)
		if sharing := requestSharing(r.Name, a.DeviceClassName, class.config, configs); sharing.Tighter(c.sharing) {
			sharing.Claim = c.address
			c.sharing = sharing
		}
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

// podDRA is what a pod's resourceClaims bring of GPUs.
type podDRA struct {
	sum map[string]int64 // devices by resource
	// notes say which claim brought which GPUs (and when a count is a floor, allocationMode
	// All); missing lists the claims that name a template or claim not among the objects read.
	notes, missing []string
	of             map[string]*claimedGPUs // by resource
}

// claimedGPUs is what the claims that bring GPUs of one resource say of them.
type claimedGPUs struct {
	// names are the pod's claims (their names in spec.resourceClaims) that bring them.
	names map[string]bool
	// shared are the ResourceClaims among them, whose pods are counted once every workload is
	// read (shareClaims).
	shared []parser.SharedClaim
	// selection is what their CEL selectors say of the GPUs.
	selection deviceSelection
	// sharing is the tightest of their sharing configurations.
	sharing *parser.ClaimSharing
}

// podClaims reads the GPUs a pod's resourceClaims bring.
func podClaims(spec podSpec, ns string, idx *claimIndex) podDRA {
	d := podDRA{sum: map[string]int64{}, of: map[string]*claimedGPUs{}}
	for _, pc := range spec.ResourceClaims {
		var c deviceClaim
		var ok bool
		switch {
		case pc.ResourceClaimTemplateName != "":
			c, ok = idx.templates[ns+"/"+pc.ResourceClaimTemplateName]
			if !ok {
				d.missing = append(d.missing, "ResourceClaimTemplate/"+ns+"/"+pc.ResourceClaimTemplateName)
				continue
			}
		case pc.ResourceClaimName != "":
			c, ok = idx.claims[ns+"/"+pc.ResourceClaimName]
			if !ok {
				d.missing = append(d.missing, "ResourceClaim/"+ns+"/"+pc.ResourceClaimName)
				continue
			}
		default:
			continue
		}
		if c.resource == "" {
			continue // a claim for other devices
		}
		d.sum[c.resource] += c.count
		g := d.of[c.resource]
		if g == nil {
			g = &claimedGPUs{names: map[string]bool{}}
			d.of[c.resource] = g
		}
		g.names[pc.Name] = true
		g.selection = g.selection.and(c.selection)
		if c.sharing.Tighter(g.sharing) {
			g.sharing = c.sharing
		}
		note := fmt.Sprintf("%s through DRA: claim %q from %s (device class %s)", devicesOf(c.count, c.resource), pc.Name, c.address, c.class)
		if c.all {
			note += "; allocationMode All takes every such device of the node: counted as one each, a floor"
		}
		if c.wholeMIG {
			note += wholeMIGNote
		}
		if c.sharing != nil {
			note += "; " + sharingNote(c.address, c.sharing)
		}
		if c.shared {
			g.shared = append(g.shared, parser.SharedClaim{Address: c.address, GPUs: c.count, Pods: 1})
		}
		d.notes = append(d.notes, note)
	}
	return d
}

// shareClaims counts the pods that name each shared ResourceClaim, across the workloads of one
// build (builds: the root of each resource that names one, by index; a kustomization's build, or
// "" for the manifests read as they stand, as autoscalers apply: another build is another
// cluster, with its own copy of the claim), and tells each workload. A ResourceClaim is
// allocated once, on one node, and every pod that names it uses its devices; so its devices are
// paid for once, split between those pods, and the pods run on that node.
// https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/#resourceclaims-and-resourceclaimtemplates
func shareClaims(rs []parser.Resource, builds map[int]string) {
	by := map[string][]claimNamer{}
	var keys []string
	for _, i := range slices.Sorted(maps.Keys(builds)) {
		for _, c := range rs[i].Pod.SharedClaims {
			key := builds[i] + "|" + c.Address
			if by[key] == nil {
				keys = append(keys, key)
			}
			by[key] = append(by[key], claimNamer{i, max(rs[i].Quantity, 0)})
		}
	}
	for _, key := range keys {
		namers := by[key]
		pods := 0
		var cpu, mem float64 // what the pods request together of the claim's node
		types := map[string]bool{}
		for _, n := range namers {
			pods += n.pods
			cpu += float64(n.pods) * rs[n.at].Pod.CPU
			mem += float64(n.pods) * rs[n.at].Pod.MemoryGiB
			if t := rs[n.at].InstanceType; t != "" {
				types[t] = true
			}
		}
		named := podsOf(rs, namers) // the same for each of them
		typeList := strings.Join(slices.Sorted(maps.Keys(types)), ", ")
		for _, n := range namers {
			r := &rs[n.at]
			claims := slices.Clone(r.Pod.SharedClaims) // the pod may be another resource's copy
			var claim parser.SharedClaim
			for j := range claims {
				if builds[n.at]+"|"+claims[j].Address == key {
					claims[j].Pods = max(pods, 1)
					if pods > 1 {
						claims[j].CPU, claims[j].MemoryGiB = cpu, mem
					}
					claim = claims[j]
				}
			}
			pod := *r.Pod
			pod.SharedClaims = claims
			r.Pod = &pod
			switch {
			case pods <= 1:
				r.Note("%s is a shared ResourceClaim, but no other pod among the manifests read names it: its pod has its %s to itself",
					claim.Address, devices(claim.GPUs, pod.MIGProfile))
			default:
				r.Note("%s is a shared ResourceClaim: its %s allocated once, on one node, for the %d pods that name it (%s): each pod pays 1/%d and uses all of it with the others",
					claim.Address, devicesAre(claim.GPUs, pod.MIGProfile), pods, named, pods)
			}
			switch {
			case r.ScaleMax == nil || r.ScaleMax.Quantity <= r.Quantity:
			case pod.SharedOnly():
				costs := "costs"
				if claim.GPUs != 1 {
					costs = "cost"
				}
				r.Note("its autoscaler adds pods, not devices: more pods share %s's %s, which %s the same at its maximum",
					claim.Address, devices(claim.GPUs, pod.MIGProfile), costs)
			default:
				r.Note("its autoscaler adds pods, not devices: more pods share %s's %s, but the cost at its maximum counts each added pod's part of them too, more than they cost",
					claim.Address, devices(claim.GPUs, pod.MIGProfile))
			}
			if len(types) > 1 {
				r.Note("the pods that name %s select different instance types (%s), but its devices are on one node: some of them cannot run",
					claim.Address, typeList)
			}
		}
	}
}

// devices is "1 GPU", "2 GPUs", or, for a MIG profile, "1 MIG 1g.10gb slice".
func devices(n int64, migProfile string) string {
	if migProfile != "" {
		return fmt.Sprintf("%d MIG %s slice%s", n, migProfile, parser.Plural(n))
	}
	return fmt.Sprintf("%d GPU%s", n, parser.Plural(n))
}

// devicesOf is devices for a count of a resource: a MIG resource's are its profile's slices.
func devicesOf(n int64, resource string) string {
	profile, _ := strings.CutPrefix(resource, ResourceNvidiaMIG)
	if profile == resource {
		profile = ""
	}
	return devices(n, profile)
}

// wholeMIGNote ends the note of a claim for MIG devices whose profile is not known.
const wholeMIGNote = "; MIG devices of a profile no selector names (device.attributes[\"gpu.nvidia.com\"].profile): each priced as a whole GPU, an upper bound"

// devicesAre is "1 GPU is" or "2 GPUs are" (devices).
func devicesAre(n int64, migProfile string) string {
	if n == 1 {
		return devices(n, migProfile) + " is"
	}
	return devices(n, migProfile) + " are"
}

// claimNamer is a workload that names a shared claim: its resource's index, and its pods.
type claimNamer struct {
	at, pods int
}

// podsOf lists the workloads that name a claim with their pods: "Deployment/ml/a × 3, Pod/ml/b".
func podsOf(rs []parser.Resource, namers []claimNamer) string {
	var parts []string
	for _, n := range namers {
		s := rs[n.at].Address
		if n.pods != 1 {
			s += fmt.Sprintf(" × %d", n.pods)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
